// Package netcdf writes MCMC draws as a netCDF classic file (the 64-bit
// offset format, CDF-2): dimensions chain and draw, coordinate variables
// of the same names (0, 1, …, as ArviZ numbers them), and one double
// variable per parameter over (chain, draw). That is the layout of an
// ArviZ posterior group, so xarray.open_dataset reads the file as a
// Dataset that ArviZ's functions take as it is (az.summary(ds),
// az.plot_trace(ds), az.convert_to_inference_data(ds)); netCDF-3 needs no
// HDF5 library to read or write.
//
// The format is Unidata's "NetCDF Classic and 64-bit Offset Format"
// (https://docs.unidata.ucar.edu/netcdf-c/current/file_format_specifications.html).
package netcdf

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Tags and types of the format.
const (
	tagDimension = 0x0A
	tagVariable  = 0x0B
	tagAttribute = 0x0C
	typeChar     = 2
	typeInt      = 4
	typeDouble   = 6
)

// Attr is a text attribute, global or of a variable.
type Attr struct {
	Name, Value string
}

// Draws are the draws of a run to write: Values[c][s][v] is draw s of
// chain c of variable v, named Names[v]. Every chain holds the same
// number of draws.
type Draws struct {
	Names  []string
	Values [][][]float64
	// Attrs are the file's global attributes, written in order.
	Attrs []Attr
}

// maxVarBytes is the largest variable the 64-bit offset format holds: its
// size field is 32 bits.
const maxVarBytes = math.MaxUint32 - 3

// Write writes d to w as a netCDF file. A name that is not a valid netCDF
// name, or that is taken (by chain, draw or an earlier variable), is
// written as VarNames gives it, with the name as given in a long_name
// attribute.
func Write(w io.Writer, d Draws) error {
	nc, ns, err := checkDraws(d)
	if err != nil {
		return err
	}
	vars := layoutVars(d, nc, ns)
	bw := bufio.NewWriter(w)
	bw.Write(fileHeader(d.Attrs, vars, nc, ns))
	var buf [8]byte
	for _, v := range vars {
		switch v.index {
		case -2, -1:
			n := v.shape[0]
			for i := range n {
				binary.BigEndian.PutUint32(buf[:4], uint32(i))
				bw.Write(buf[:4])
			}
			bw.Write(make([]byte, v.size-int64(n)*4))
		default:
			for _, ch := range d.Values {
				for _, x := range ch {
					binary.BigEndian.PutUint64(buf[:], math.Float64bits(x[v.index]))
					bw.Write(buf[:])
				}
			}
		}
	}
	return bw.Flush()
}

// checkDraws returns the numbers of chains and draws of d after checking
// that its chains are of equal length, its draws of its names' length,
// that the format holds them, and that its attributes' names are valid.
func checkDraws(d Draws) (nc, ns int, err error) {
	nc = len(d.Values)
	if nc > 0 {
		ns = len(d.Values[0])
	}
	nv := len(d.Names)
	for c, ch := range d.Values {
		if len(ch) != ns {
			return 0, 0, fmt.Errorf("netcdf: chain %d holds %d draws, chain 1 %d: chains must be of equal length", c+1, len(ch), ns)
		}
		for s, v := range ch {
			if len(v) != nv {
				return 0, 0, fmt.Errorf("netcdf: draw %d of chain %d holds %d values for %d names", s+1, c+1, len(v), nv)
			}
		}
	}
	if nc > math.MaxInt32 || ns > math.MaxInt32 {
		return 0, 0, fmt.Errorf("netcdf: %d chains × %d draws: a dimension holds at most %d", nc, ns, math.MaxInt32)
	}
	if int64(nc)*int64(ns)*8 > maxVarBytes {
		return 0, 0, fmt.Errorf("netcdf: %d chains × %d draws need %d bytes a variable; the format holds %d", nc, ns, int64(nc)*int64(ns)*8, int64(maxVarBytes))
	}
	for _, a := range d.Attrs {
		if !validName(a.Name) {
			return 0, 0, fmt.Errorf("netcdf: attribute name %q is not a valid netCDF name", a.Name)
		}
	}
	return nc, ns, nil
}

// ncVar is a variable Write writes.
type ncVar struct {
	name  string
	dims  []int32
	shape []int
	attrs []Attr
	typ   int32
	size  int64 // bytes, padded to 4
	index int   // -2: the chain coordinate, -1: draw, else the variable
}

// layoutVars returns the variables of d's file, of nc chains and ns
// draws, in the order they are written: the coordinates chain and draw
// and one per name.
func layoutVars(d Draws, nc, ns int) []ncVar {
	names := VarNames(d.Names)
	vars := []ncVar{
		{name: "chain", dims: []int32{0}, shape: []int{nc}, typ: typeInt, size: pad4(int64(nc) * 4), index: -2},
		{name: "draw", dims: []int32{1}, shape: []int{ns}, typ: typeInt, size: pad4(int64(ns) * 4), index: -1},
	}
	for v, n := range names {
		var attrs []Attr
		if n != d.Names[v] {
			attrs = []Attr{{"long_name", d.Names[v]}}
		}
		vars = append(vars, ncVar{name: n, dims: []int32{0, 1}, shape: []int{nc, ns}, attrs: attrs, typ: typeDouble, size: int64(nc) * int64(ns) * 8, index: v})
	}
	// The order of SciPy's writer (scipy.io.netcdf_file): by shape,
	// largest first, compared as tuples; the order does not matter to
	// readers, and following one writer lets the tests compare bytes.
	slices.SortStableFunc(vars, func(a, b ncVar) int { return -slices.Compare(a.shape, b.shape) })
	return vars
}

// fileHeader returns the file's header: the dimensions chain (nc) and
// draw (ns), the global attributes attrs and the variables vars, whose
// data follow the header in their order.
func fileHeader(attrs []Attr, vars []ncVar, nc, ns int) []byte {
	var h header
	h.bytes([]byte("CDF\x02"))
	h.int32(0) // numrecs: no record dimension
	h.int32(tagDimension)
	h.int32(2)
	h.name("chain")
	h.int32(int32(nc))
	h.name("draw")
	h.int32(int32(ns))
	h.attrs(attrs)
	h.int32(tagVariable)
	h.int32(int32(len(vars)))
	// The header's length does not depend on the offsets (8 bytes each),
	// so it is laid out once with zero offsets to learn where data begin.
	offsetAt := make([]int, len(vars))
	for i, v := range vars {
		h.name(v.name)
		h.int32(int32(len(v.dims)))
		for _, id := range v.dims {
			h.int32(id)
		}
		h.attrs(v.attrs)
		h.int32(v.typ)
		h.int32(int32(uint32(v.size)))
		offsetAt[i] = len(h.b)
		h.int64(0)
	}
	begin := int64(len(h.b))
	for i, v := range vars {
		binary.BigEndian.PutUint64(h.b[offsetAt[i]:], uint64(begin))
		begin += v.size
	}
	return h.b
}

// VarNames returns the variable names Write gives names: each made a
// valid netCDF name (characters the format does not allow become '_', a
// name that does not start with a letter, digit or '_' gains a leading
// '_', an empty name is "_") and made unique (a name taken by chain, draw
// or an earlier variable gains a suffix _2, _3, …).
func VarNames(names []string) []string {
	taken := map[string]bool{"chain": true, "draw": true}
	out := make([]string, len(names))
	for i, n := range names {
		base := sanitize(n)
		m := base
		for k := 2; taken[m]; k++ {
			m = base + "_" + strconv.Itoa(k)
		}
		taken[m] = true
		out[i] = m
	}
	return out
}

// sanitize makes s a valid netCDF name.
func sanitize(s string) string {
	if validName(s) {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		if r == utf8.RuneError || r == '/' || unicode.IsControl(r) || r > unicode.MaxRune {
			r = '_'
		}
		if i == 0 && !firstOK(r) {
			b.WriteByte('_')
		}
		b.WriteRune(r)
	}
	t := strings.TrimRightFunc(b.String(), unicode.IsSpace)
	if t == "" {
		return "_"
	}
	return t
}

// firstOK reports whether r may begin a netCDF name: a letter, a digit,
// '_' or any non-ASCII character.
func firstOK(r rune) bool {
	return r == '_' || r >= utf8.RuneSelf || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')
}

// validName reports whether s is a netCDF name: valid UTF-8, first
// character a letter, digit, '_' or non-ASCII, no '/' or control
// character, no trailing white space.
func validName(s string) bool {
	if s == "" || !utf8.ValidString(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s)
	if !firstOK(r) {
		return false
	}
	for _, r := range s {
		if r == '/' || unicode.IsControl(r) {
			return false
		}
	}
	last, _ := utf8.DecodeLastRuneInString(s)
	return !unicode.IsSpace(last)
}

// header accumulates the big-endian header.
type header struct{ b []byte }

func (h *header) bytes(p []byte) { h.b = append(h.b, p...) }
func (h *header) int32(v int32)  { h.b = binary.BigEndian.AppendUint32(h.b, uint32(v)) }
func (h *header) int64(v int64)  { h.b = binary.BigEndian.AppendUint64(h.b, uint64(v)) }

// name writes a length and the bytes of s padded with zeros to 4 bytes.
func (h *header) name(s string) {
	h.int32(int32(len(s)))
	h.b = append(h.b, s...)
	h.b = append(h.b, make([]byte, pad4(int64(len(s)))-int64(len(s)))...)
}

// attrs writes an attribute list of text attributes (ABSENT if empty).
func (h *header) attrs(as []Attr) {
	if len(as) == 0 {
		h.int32(0)
		h.int32(0)
		return
	}
	h.int32(tagAttribute)
	h.int32(int32(len(as)))
	for _, a := range as {
		h.name(a.Name)
		h.int32(typeChar)
		h.name(a.Value)
	}
}

func pad4(n int64) int64 { return (n + 3) &^ 3 }

// Read reads a netCDF classic or 64-bit offset file with dimensions chain
// and draw, as Write makes them (xarray's to_netcdf with format
// "NETCDF3_64BIT" or "NETCDF3_CLASSIC" makes them too): every double
// variable over (chain, draw) is a variable of the draws, in the file's
// order, named by its long_name attribute where it has one. Text global
// attributes are returned; other variables and attributes are skipped.
func Read(b []byte) (Draws, error) {
	r := reader{b: b}
	var d Draws
	magic := r.take(4)
	if r.err != nil || string(magic[:3]) != "CDF" || (magic[3] != 1 && magic[3] != 2) {
		return d, errors.New("netcdf: not a netCDF classic or 64-bit offset file")
	}
	wide := magic[3] == 2
	r.int32() // numrecs
	chainDim, drawDim, dimLen := r.dims()
	for _, a := range r.attrs() {
		if a.typ == typeChar {
			d.Attrs = append(d.Attrs, Attr{a.name, string(a.val)})
		}
	}
	if r.err == nil && (chainDim < 0 || drawDim < 0) {
		return d, errors.New("netcdf: no chain and draw dimensions")
	}
	locs, err := r.drawVars(wide, chainDim, drawDim, dimLen)
	if err != nil {
		return d, err
	}
	if r.err != nil {
		return d, r.err
	}
	if len(locs) == 0 {
		return d, nil
	}
	nc, ns := dimLen[chainDim], dimLen[drawDim]
	if nc == 0 || ns == 0 {
		// A dimension of length 0 is the record dimension in this
		// format: variables over it are laid out apart, as Write never
		// does.
		return d, fmt.Errorf("netcdf: %d chains × %d draws: no draws", nc, ns)
	}
	if nc < 0 || ns < 0 || int64(nc)*int64(ns) > int64(len(b))/8 {
		return d, fmt.Errorf("netcdf: %d chains × %d draws do not fit in a file of %d bytes", nc, ns, len(b))
	}
	for _, l := range locs {
		if l.begin < 0 || l.begin+int64(nc)*int64(ns)*8 > int64(len(b)) {
			return d, fmt.Errorf("netcdf: variable %q runs past the end of the file", l.name)
		}
	}
	d.Values = make([][][]float64, nc)
	for c := range d.Values {
		d.Values[c] = make([][]float64, ns)
		for s := range d.Values[c] {
			d.Values[c][s] = make([]float64, len(locs))
		}
	}
	for v, l := range locs {
		d.Names = append(d.Names, l.name)
		p := l.begin
		for c := range nc {
			for s := range ns {
				d.Values[c][s][v] = math.Float64frombits(binary.BigEndian.Uint64(b[p:]))
				p += 8
			}
		}
	}
	return d, nil
}

// dims reads the header's dimension list and returns the indices of the
// dimensions chain and draw (−1 if absent) and every dimension's length.
func (r *reader) dims() (chainDim, drawDim int, dimLen []int) {
	chainDim, drawDim = -1, -1
	if tag, n := r.int32(), r.int32(); tag == tagDimension {
		for i := int32(0); i < n && r.err == nil; i++ {
			name := r.name()
			l := r.int32()
			switch name {
			case "chain":
				chainDim = int(i)
			case "draw":
				drawDim = int(i)
			}
			dimLen = append(dimLen, int(l))
		}
	}
	return chainDim, drawDim, dimLen
}

// varLoc is where a variable of the draws begins in the file, and its
// name.
type varLoc struct {
	begin int64
	name  string
}

// drawVars reads the header's variable list (with 64-bit offsets if wide)
// and returns the double variables over (chain, draw), named by their
// long_name attribute where they have one. It returns an error if a
// variable is over a dimension that the list of lengths dimLen lacks or
// lies past the end of the file.
func (r *reader) drawVars(wide bool, chainDim, drawDim int, dimLen []int) ([]varLoc, error) {
	var locs []varLoc
	if tag, n := r.int32(), r.int32(); tag == tagVariable {
		for i := int32(0); i < n && r.err == nil; i++ {
			name := r.name()
			nd := r.int32()
			var dims []int32
			for j := int32(0); j < nd && r.err == nil; j++ {
				dims = append(dims, r.int32())
			}
			for _, a := range r.attrs() {
				if a.name == "long_name" && a.typ == typeChar {
					name = string(a.val)
				}
			}
			typ := r.int32()
			r.int32() // vsize
			var begin int64
			if wide {
				begin = r.int64()
			} else {
				begin = int64(r.int32())
			}
			// Every variable must lie within the file (record variables,
			// over a dimension of length 0, are not read and not checked).
			size := int64(typeSize[typ])
			for _, id := range dims {
				if id < 0 || int(id) >= len(dimLen) {
					return nil, fmt.Errorf("netcdf: variable %q over dimension %d of %d", name, id, len(dimLen))
				}
				if size = size * int64(dimLen[id]); size > int64(len(r.b)) {
					break
				}
			}
			if r.err == nil && (size < 0 || begin < 0 || begin+size > int64(len(r.b))) {
				return nil, fmt.Errorf("netcdf: variable %q runs past the end of the file", name)
			}
			if typ == typeDouble && slices.Equal(dims, []int32{int32(chainDim), int32(drawDim)}) {
				locs = append(locs, varLoc{begin, name})
			}
		}
	}
	return locs, nil
}

// reader reads a header; after the first error every read gives zeros.
type reader struct {
	b   []byte
	p   int
	err error
}

func (r *reader) take(n int) []byte {
	if r.err != nil || n < 0 || r.p+n > len(r.b) {
		r.err = errors.New("netcdf: header ends early")
		return make([]byte, max(n, 0))
	}
	p := r.b[r.p : r.p+n]
	r.p += n
	return p
}

func (r *reader) int32() int32 { return int32(binary.BigEndian.Uint32(r.take(4))) }
func (r *reader) int64() int64 { return int64(binary.BigEndian.Uint64(r.take(8))) }

func (r *reader) name() string {
	n := int(r.int32())
	if r.err == nil && (n < 0 || n > len(r.b)) {
		r.err = errors.New("netcdf: bad name length")
		return ""
	}
	s := string(r.take(n))
	r.take(int(pad4(int64(n))) - n)
	return s
}

type attr struct {
	name string
	typ  int32
	val  []byte
}

// typeSize is the size in bytes of one value of each external type.
var typeSize = map[int32]int{1: 1, 2: 1, 3: 2, 4: 4, 5: 4, 6: 8}

func (r *reader) attrs() []attr {
	tag, n := r.int32(), r.int32()
	if tag != tagAttribute {
		return nil
	}
	var as []attr
	for i := int32(0); i < n && r.err == nil; i++ {
		name := r.name()
		typ := r.int32()
		cnt := int(r.int32())
		size, ok := typeSize[typ]
		if r.err == nil && (!ok || cnt < 0 || cnt > len(r.b)) {
			r.err = fmt.Errorf("netcdf: attribute %q of type %d and %d values", name, typ, cnt)
			return nil
		}
		val := r.take(cnt * size)
		r.take(int(pad4(int64(cnt*size))) - cnt*size)
		as = append(as, attr{name, typ, val})
	}
	return as
}
