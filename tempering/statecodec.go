package tempering

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"reflect"
	"unsafe"
)

// The checkpoint's encoding of a chain's state: a walk of the chain's
// structs, unexported fields included, that writes every number, flag
// and slice, follows pointers and the pointers inside interfaces (the
// level kernels), and skips the fields tagged `ckpt:"-"`: the chain's
// links to its target, settings, pools and random stream, which a
// resumed run rebuilds. Decoding overlays the values on a chain built
// afresh on the same ladder: a slice of the length it holds is filled in
// place, so that the slices that share an array (a State's U and
// gradients, the subsets' prefixes of the permutation) still share it.
// The encoding follows the structs' layout, which layoutHash fingerprints
// for the checkpoint's header.

// errCodec reports a malformed encoding.
var errCodec = errors.New("malformed chain state")

// stateEnc appends a value's encoding to buf.
type stateEnc struct{ buf []byte }

// field returns f, a field of an addressable struct, readable and
// settable even if unexported.
func field(f reflect.Value) reflect.Value {
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
}

// skipped reports whether the struct field is left out of the encoding.
func skipped(f reflect.StructField) bool { return f.Tag.Get("ckpt") == "-" }

func (e *stateEnc) value(v reflect.Value) error {
	switch v.Kind() {
	case reflect.Bool:
		b := byte(0)
		if v.Bool() {
			b = 1
		}
		e.buf = append(e.buf, b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.buf = binary.AppendVarint(e.buf, v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		e.buf = binary.AppendUvarint(e.buf, v.Uint())
	case reflect.Float64, reflect.Float32:
		e.buf = binary.LittleEndian.AppendUint64(e.buf, math.Float64bits(v.Float()))
	case reflect.String:
		e.buf = binary.AppendUvarint(e.buf, uint64(v.Len()))
		e.buf = append(e.buf, v.String()...)
	case reflect.Slice:
		if v.IsNil() {
			e.buf = binary.AppendVarint(e.buf, -1)
			return nil
		}
		e.buf = binary.AppendVarint(e.buf, int64(v.Len()))
		return e.elems(v)
	case reflect.Array:
		return e.elems(v)
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			if skipped(t.Field(i)) {
				continue
			}
			if err := e.value(field(v.Field(i))); err != nil {
				return fmt.Errorf("%s.%s: %w", t.Name(), t.Field(i).Name, err)
			}
		}
	case reflect.Pointer:
		if v.IsNil() {
			e.buf = append(e.buf, 0)
			return nil
		}
		e.buf = append(e.buf, 1)
		return e.value(v.Elem())
	case reflect.Interface:
		return e.iface(v)
	default:
		return fmt.Errorf("cannot save a %s", v.Type())
	}
	return nil
}

// elems encodes the elements of a slice or array.
func (e *stateEnc) elems(v reflect.Value) error {
	if v.Type().Elem().Kind() == reflect.Float64 && v.Kind() == reflect.Slice {
		for _, x := range v.Interface().([]float64) {
			e.buf = binary.LittleEndian.AppendUint64(e.buf, math.Float64bits(x))
		}
		return nil
	}
	for i := range v.Len() {
		if err := e.value(v.Index(i)); err != nil {
			return err
		}
	}
	return nil
}

// iface encodes the value a non-nil interface points to, after its type's
// name and layout.
func (e *stateEnc) iface(v reflect.Value) error {
	if v.IsNil() {
		e.buf = append(e.buf, 0)
		return nil
	}
	p := v.Elem()
	if p.Kind() != reflect.Pointer || p.IsNil() {
		return fmt.Errorf("cannot save a %s held by value", p.Type())
	}
	e.buf = append(e.buf, 1)
	name := p.Type().String()
	e.buf = binary.AppendUvarint(e.buf, uint64(len(name)))
	e.buf = append(e.buf, name...)
	h := layoutHash(p.Type())
	e.buf = append(e.buf, h[:8]...)
	return e.value(p.Elem())
}

// stateDec overlays an encoding on existing values.
type stateDec struct{ buf []byte }

func (d *stateDec) bytes(n int) ([]byte, error) {
	if n < 0 || n > len(d.buf) {
		return nil, errCodec
	}
	b := d.buf[:n]
	d.buf = d.buf[n:]
	return b, nil
}

func (d *stateDec) varint() (int64, error) {
	x, n := binary.Varint(d.buf)
	if n <= 0 {
		return 0, errCodec
	}
	d.buf = d.buf[n:]
	return x, nil
}

func (d *stateDec) uvarint() (uint64, error) {
	x, n := binary.Uvarint(d.buf)
	if n <= 0 {
		return 0, errCodec
	}
	d.buf = d.buf[n:]
	return x, nil
}

func (d *stateDec) float() (float64, error) {
	b, err := d.bytes(8)
	if err != nil {
		return 0, err
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil
}

// value decodes into v, which must be settable.
func (d *stateDec) value(v reflect.Value) error {
	switch v.Kind() {
	case reflect.Bool:
		b, err := d.bytes(1)
		if err != nil || b[0] > 1 {
			return errCodec
		}
		v.SetBool(b[0] == 1)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		x, err := d.varint()
		if err != nil || v.OverflowInt(x) {
			return errCodec
		}
		v.SetInt(x)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		x, err := d.uvarint()
		if err != nil || v.OverflowUint(x) {
			return errCodec
		}
		v.SetUint(x)
	case reflect.Float64, reflect.Float32:
		x, err := d.float()
		if err != nil {
			return err
		}
		v.SetFloat(x)
	case reflect.String:
		n, err := d.uvarint()
		if err != nil || n > uint64(len(d.buf)) {
			return errCodec
		}
		b, _ := d.bytes(int(n))
		v.SetString(string(b))
	case reflect.Slice:
		return d.slice(v)
	case reflect.Array:
		return d.elems(v)
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			if skipped(t.Field(i)) {
				continue
			}
			if err := d.value(field(v.Field(i))); err != nil {
				return err
			}
		}
	case reflect.Pointer:
		return d.pointer(v)
	case reflect.Interface:
		return d.iface(v)
	default:
		return fmt.Errorf("cannot restore a %s", v.Type())
	}
	return nil
}

// slice decodes a slice in place if v has its length, else into a new one.
func (d *stateDec) slice(v reflect.Value) error {
	n, err := d.varint()
	switch {
	case err != nil || n < -1 || n > int64(len(d.buf)):
		// Every element takes at least one byte.
		return errCodec
	case n == -1:
		v.SetZero()
		return nil
	}
	if v.IsNil() || v.Len() != int(n) {
		v.Set(reflect.MakeSlice(v.Type(), int(n), int(n)))
	}
	return d.elems(v)
}

func (d *stateDec) elems(v reflect.Value) error {
	if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Float64 {
		xs := v.Interface().([]float64)
		if len(xs) > len(d.buf)/8 {
			return errCodec
		}
		for i := range xs {
			xs[i], _ = d.float()
		}
		return nil
	}
	for i := range v.Len() {
		if err := d.value(v.Index(i)); err != nil {
			return err
		}
	}
	return nil
}

func (d *stateDec) pointer(v reflect.Value) error {
	b, err := d.bytes(1)
	switch {
	case err != nil || b[0] > 1:
		return errCodec
	case b[0] == 0:
		v.SetZero()
		return nil
	}
	if v.IsNil() {
		v.Set(reflect.New(v.Type().Elem()))
	}
	return d.value(v.Elem())
}

// iface decodes into the value a non-nil interface points to, which must
// be of the encoded type and layout.
func (d *stateDec) iface(v reflect.Value) error {
	b, err := d.bytes(1)
	switch {
	case err != nil || b[0] > 1:
		return errCodec
	case b[0] == 0:
		if !v.IsNil() {
			return errCodec
		}
		return nil
	}
	n, err := d.uvarint()
	if err != nil || n > uint64(len(d.buf)) {
		return errCodec
	}
	name, _ := d.bytes(int(n))
	h, err := d.bytes(8)
	if err != nil {
		return err
	}
	if v.IsNil() {
		return fmt.Errorf("%w: a %s where the chain has none", errCodec, name)
	}
	p := v.Elem()
	want := layoutHash(p.Type())
	if p.Kind() != reflect.Pointer || p.IsNil() || p.Type().String() != string(name) || string(h) != string(want[:8]) {
		return fmt.Errorf("%w: a %s where the chain has a %s", errCodec, name, p.Type())
	}
	return d.value(p.Elem())
}

// layoutHash fingerprints a type's layout as the encoding sees it: kinds,
// field names, tags and element types, followed through pointers and
// slices (an interface by its name).
func layoutHash(t reflect.Type) [sha256.Size]byte {
	h := sha256.New()
	var walk func(t reflect.Type, depth int)
	walk = func(t reflect.Type, depth int) {
		fmt.Fprintf(h, "%d:%s;", depth, t.Kind())
		if depth > 12 {
			return
		}
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice:
			walk(t.Elem(), depth+1)
		case reflect.Array:
			fmt.Fprintf(h, "[%d]", t.Len())
			walk(t.Elem(), depth+1)
		case reflect.Struct:
			fmt.Fprintf(h, "%s{", t.String())
			for i := range t.NumField() {
				f := t.Field(i)
				fmt.Fprintf(h, "%s %q ", f.Name, f.Tag)
				if !skipped(f) {
					walk(f.Type, depth+1)
				}
			}
			h.Write([]byte("}"))
		case reflect.Interface:
			h.Write([]byte(t.String()))
		}
	}
	walk(t, 0)
	var out [sha256.Size]byte
	h.Sum(out[:0])
	return out
}
