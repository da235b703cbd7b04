package netcdf

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
)

// goldenDraws are the draws of testdata/golden.py: value c·100 + s + k/8
// − 2.5 for chain c, draw s, variable k.
func goldenDraws() Draws {
	const C, S = 3, 5
	names := []string{"ell_x1", "sf", "ell x/2", "chain"}
	vals := make([][][]float64, C)
	for c := range vals {
		vals[c] = make([][]float64, S)
		for s := range vals[c] {
			for k := range names {
				vals[c][s] = append(vals[c][s], float64(c*100+s)+float64(k)/8-2.5)
			}
		}
	}
	return Draws{Names: names, Values: vals, Attrs: []Attr{{"inference_library", "subtemper"}, {"created_by", "netcdf_test"}}}
}

// TestWriteGolden: Write gives byte for byte the file SciPy's netCDF-3
// writer makes of the same draws (testdata/golden.py wrote golden.nc),
// names made valid and unique included.
func TestWriteGolden(t *testing.T) {
	want, err := os.ReadFile("testdata/golden.nc")
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := Write(&got, goldenDraws()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		n := 0
		for n < min(got.Len(), len(want)) && got.Bytes()[n] == want[n] {
			n++
		}
		t.Fatalf("Write gives %d bytes, SciPy %d; first difference at byte %d", got.Len(), len(want), n)
	}
}

// parse reads the header of a file Write made (text attributes only) and
// returns each variable's begin offset and size, by name.
func parse(t *testing.T, b []byte) map[string][2]int {
	t.Helper()
	p := 0
	i32 := func() int { v := int(int32(binary.BigEndian.Uint32(b[p:]))); p += 4; return v }
	str := func() string { n := i32(); s := string(b[p : p+n]); p += (n + 3) &^ 3; return s }
	attrs := func() {
		tag, n := i32(), i32()
		if tag == 0 {
			return
		}
		for range n {
			str()
			if typ := i32(); typ != typeChar {
				t.Fatalf("attribute of type %d", typ)
			}
			str()
		}
	}
	if string(b[:4]) != "CDF\x02" {
		t.Fatalf("magic %q", b[:4])
	}
	p = 4
	if nrec := i32(); nrec != 0 {
		t.Fatalf("numrecs %d", nrec)
	}
	if tag := i32(); tag != tagDimension {
		t.Fatalf("dimension tag %d", tag)
	}
	for range i32() {
		str()
		i32()
	}
	attrs()
	if tag := i32(); tag != tagVariable {
		t.Fatalf("variable tag %d", tag)
	}
	vars := map[string][2]int{}
	for range i32() {
		name := str()
		for range i32() {
			i32()
		}
		attrs()
		i32()
		size := i32()
		begin := int(binary.BigEndian.Uint64(b[p:]))
		p += 8
		vars[name] = [2]int{begin, size}
	}
	return vars
}

// TestWriteLayout reads back, through the header's offsets, a case
// golden.nc does not cover: no attributes, one chain, names that need
// padding, values at the edges of float64.
func TestWriteLayout(t *testing.T) {
	d := Draws{Names: []string{"a", "bcde"}, Values: [][][]float64{{{1, -2}, {math.Inf(1), 4}, {math.NaN(), math.SmallestNonzeroFloat64}}}}
	var buf bytes.Buffer
	if err := Write(&buf, d); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	vars := parse(t, b)
	if len(vars) != 4 {
		t.Fatalf("variables %v, want chain, draw, a, bcde", vars)
	}
	for v, name := range d.Names {
		at := vars[name]
		if at[1] != 3*8 {
			t.Errorf("%s: size %d, want 24", name, at[1])
		}
		for s := range 3 {
			got := math.Float64frombits(binary.BigEndian.Uint64(b[at[0]+8*s:]))
			if want := d.Values[0][s][v]; got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Errorf("%s draw %d: %v, want %v", name, s, got, want)
			}
		}
	}
	for name, n := range map[string]int{"chain": 1, "draw": 3} {
		at := vars[name]
		for i := range n {
			if got := int32(binary.BigEndian.Uint32(b[at[0]+4*i:])); got != int32(i) {
				t.Errorf("%s[%d] = %d", name, i, got)
			}
		}
	}
	end := 0
	for _, at := range vars {
		end = max(end, at[0]+(at[1]+3)&^3)
	}
	if end != len(b) {
		t.Errorf("variables end at %d, the file at %d", end, len(b))
	}
}

func TestWriteRefuses(t *testing.T) {
	for _, c := range []struct {
		name string
		d    Draws
		msg  string
	}{
		{"unequal chains", Draws{Names: []string{"a"}, Values: [][][]float64{{{1}, {2}}, {{1}}}}, "equal length"},
		{"short draw", Draws{Names: []string{"a", "b"}, Values: [][][]float64{{{1}}}}, "1 values for 2 names"},
		{"bad attribute name", Draws{Names: []string{"a"}, Values: [][][]float64{{{1}}}, Attrs: []Attr{{"a/b", "x"}}}, "attribute name"},
	} {
		err := Write(&bytes.Buffer{}, c.d)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.msg)
		}
	}
}

func TestVarNames(t *testing.T) {
	got := VarNames([]string{"ell_x1", "ell x/2", "draw", "chain", "chain", "", " lead", "trail ", "-x", "é", "a\x01b", "1st"})
	want := []string{"ell_x1", "ell x_2", "draw_2", "chain_2", "chain_3", "_", "_ lead", "trail", "_-x", "é", "a_b", "1st"}
	if !slices.Equal(got, want) {
		t.Errorf("VarNames = %q\nwant      %q", got, want)
	}
	for _, n := range got {
		if !validName(n) {
			t.Errorf("%q is not a valid name", n)
		}
	}
}

// TestReadGolden reads SciPy's file back as the draws it was made of,
// long_name restoring the names as given.
func TestReadGolden(t *testing.T) {
	b, err := os.ReadFile("testdata/golden.nc")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Read(b)
	if err != nil {
		t.Fatal(err)
	}
	want := goldenDraws()
	if !slices.Equal(got.Names, want.Names) || !slices.Equal(got.Attrs, want.Attrs) {
		t.Fatalf("names %q attrs %q, want %q %q", got.Names, got.Attrs, want.Names, want.Attrs)
	}
	if len(got.Values) != len(want.Values) {
		t.Fatalf("%d chains, want %d", len(got.Values), len(want.Values))
	}
	for c := range want.Values {
		for s := range want.Values[c] {
			if !slices.Equal(got.Values[c][s], want.Values[c][s]) {
				t.Fatalf("chain %d draw %d: %v, want %v", c, s, got.Values[c][s], want.Values[c][s])
			}
		}
	}
}

// TestReadRefuses: files that are not what Read reads, or that end early
// or point past their end, give errors (FuzzRead tries many more).
func TestReadRefuses(t *testing.T) {
	good, err := os.ReadFile("testdata/golden.nc")
	if err != nil {
		t.Fatal(err)
	}
	short := good[:len(good)-8]
	noDims := []byte("CDF\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00")
	for name, b := range map[string][]byte{"empty": nil, "csv": []byte("a,b\n1,2\n"), "hdf5": []byte("\x89HDF\r\n\x1a\n"),
		"truncated header": good[:100], "truncated data": short, "no dimensions": noDims} {
		if _, err := Read(b); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func FuzzRead(f *testing.F) {
	good, err := os.ReadFile("testdata/golden.nc")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add(good[:200])
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := Read(b)
		if err != nil {
			return
		}
		// What Read accepts, Write writes and Read reads back the same.
		var buf bytes.Buffer
		if err := Write(&buf, d); err != nil {
			return // names or attributes Write refuses
		}
		e, err := Read(buf.Bytes())
		if err != nil {
			t.Fatalf("reading back what Write wrote: %v", err)
		}
		if !slices.Equal(d.Names, e.Names) || len(d.Values) != len(e.Values) {
			t.Fatalf("round trip: %q %d chains, then %q %d", d.Names, len(d.Values), e.Names, len(e.Values))
		}
		for c := range d.Values {
			for s := range d.Values[c] {
				for v, x := range d.Values[c][s] {
					if y := e.Values[c][s][v]; math.Float64bits(x) != math.Float64bits(y) {
						t.Fatalf("round trip: %v then %v", x, y)
					}
				}
			}
		}
	})
}
