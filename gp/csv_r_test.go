package gp

import (
	"os"
	"strings"
	"testing"
)

// testdata/diamonds.csv is shaped as R's write.csv(ggplot2::diamonds[1:24, ])
// writes it: a quoted header whose first column, the row names, has an
// empty name, and factor columns as quoted strings.
func TestReadCSVRDiamonds(t *testing.T) {
	opt := CSVOptions{Target: "price", Exclude: []string{"cut", "color", "clarity"}}
	d, err := ReadCSVFile("testdata/diamonds.csv", opt)
	if err != nil {
		t.Fatal(err)
	}
	if d.N != 24 || d.D != 6 || strings.Join(d.Names, ",") != "carat,depth,table,x,y,z" || d.Target != "price" {
		t.Fatalf("read N = %d, D = %d, inputs %v, target %q; want 24 rows, inputs carat,depth,table,x,y,z, target price", d.N, d.D, d.Names, d.Target)
	}
	// Row 1 of the file: "1",0.51,"Ideal","G","SI2",61.6,61,1249,5.23,5.23,3.24
	if d.X[0] != 0.51 || d.X[1] != 61.6 || d.X[5] != 3.24 || d.Y[0] != 1249 {
		t.Errorf("first row read as x = %v, y = %v", d.X[:6], d.Y[0])
	}
	// Without the exclusion the first factor column is named.
	_, err = ReadCSVFile("testdata/diamonds.csv", CSVOptions{Target: "price"})
	if err == nil || !strings.Contains(err.Error(), `column 3 ("cut")`) || !strings.Contains(err.Error(), "--exclude cut") {
		t.Errorf("factor column kept: error %v, want one naming column 3 (\"cut\") and --exclude cut", err)
	}
}

// testdata/airquality.csv is shaped as R's write.csv(airquality[1:30, ],
// row.names = FALSE) writes it: NA for missing values, in 7 rows.
func TestReadCSVRAirqualityNA(t *testing.T) {
	_, err := ReadCSVFile("testdata/airquality.csv", CSVOptions{Target: "Ozone"})
	if err == nil || !strings.Contains(err.Error(), "airquality.csv:6:") || !strings.Contains(err.Error(), `"NA", a missing value`) {
		t.Fatalf("NA without DropNA: error %v, want one naming line 6 and the NA", err)
	}
	f, err := os.Open("testdata/airquality.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, info, err := ReadCSVInfo(f, "airquality.csv", CSVOptions{Target: "Ozone", DropNA: true})
	if err != nil {
		t.Fatal(err)
	}
	// Lines 6, 7, 11, 12, 26, 27, 28 hold an NA (counted by hand).
	if d.N != 23 || info.Dropped != 7 || len(info.DroppedLines) != 7 || info.DroppedLines[0] != 6 || info.DroppedLines[6] != 28 {
		t.Errorf("DropNA kept %d rows, dropped %d (lines %v); want 23 kept, 7 dropped, lines 6 … 28", d.N, info.Dropped, info.DroppedLines)
	}
	// An NA only in columns left out drops nothing: every NA is in Ozone
	// or Solar.R.
	f.Seek(0, 0)
	d, info, err = ReadCSVInfo(f, "airquality.csv", CSVOptions{Target: "Wind", Inputs: []string{"Temp", "Month", "Day"}, DropNA: true})
	if err != nil {
		t.Fatal(err)
	}
	if d.N != 30 || info.Dropped != 0 {
		t.Errorf("NAs in ignored columns only: N = %v, dropped %d; want 30 rows, none dropped", d.N, info.Dropped)
	}
}
