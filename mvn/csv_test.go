package mvn

import (
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestReadCSVBOM checks that a UTF-8 byte-order mark at the start of an
// observations file or a Σ file is skipped, and that the files otherwise
// read as they do without the mark.
func TestReadCSVBOM(t *testing.T) {
	const obs = "a,b\n1,2\n3,4\n"
	plain, err := ReadCSV(strings.NewReader(obs), "x.csv")
	if err != nil {
		t.Fatal(err)
	}
	d, err := ReadCSV(strings.NewReader("\ufeff"+obs), "x.csv")
	if err != nil {
		t.Fatal(err)
	}
	if d.Names[0] != "a" || !reflect.DeepEqual(d, plain) {
		t.Errorf("observations with a BOM read as %+v, without as %+v", d, plain)
	}

	for _, in := range []string{"1,0.5\n0.5,2\n", "s1,s2\n1,0.5\n0.5,2\n"} {
		plain, err := ReadSigmaCSV(strings.NewReader(in), "s.csv", 2)
		if err != nil {
			t.Fatal(err)
		}
		s, err := ReadSigmaCSV(strings.NewReader("\ufeff"+in), "s.csv", 2)
		if err != nil {
			t.Fatalf("%q with a BOM: %v", in, err)
		}
		if s.At(0, 0) != 1 || !mat.Equal(s, plain) {
			t.Errorf("%q with a BOM: Σ = %v, without %v", in, mat.Formatted(s), mat.Formatted(plain))
		}
	}
}

// TestCSVMessages checks that counts in error messages agree with their
// nouns ("1 dimension", "1 field") and that a failed write names its file
// once, with one "mvn:".
func TestCSVMessages(t *testing.T) {
	_, err := ReadSigmaCSV(strings.NewReader("1,0.5\n0.5,2\n"), "s.csv", 1)
	if err == nil || !strings.Contains(err.Error(), "2 columns; the observations have 1 dimension") {
		t.Errorf("Σ of 2 columns for 1 dimension: %v", err)
	}
	_, err = ReadCSV(strings.NewReader("a,b\n1,2\n3\n"), "x.csv")
	if err == nil || !strings.Contains(err.Error(), "has 1 field,") {
		t.Errorf("a row of one field: %v", err)
	}
	d := &Data{N: 1, D: 1, X: []float64{1}}
	path := t.TempDir() + "/missing/x.csv"
	err = WriteCSVFile(path, d)
	if err == nil || strings.Count(err.Error(), "mvn:") != 1 || !strings.Contains(err.Error(), path) {
		t.Errorf("write into a missing folder: %v", err)
	}
}
