package bench

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
)

// JSON has no NaN: the result types write a NaN float field as null and
// read null back as NaN.

// marshalNaN encodes the struct v as a JSON object of its tagged fields,
// with NaN and ±Inf float64 fields as null.
func marshalNaN(v any) ([]byte, error) {
	rv := reflect.ValueOf(v)
	rt := rv.Type()
	m := make(map[string]any, rt.NumField())
	for i := range rt.NumField() {
		f := rt.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			name = f.Name
		}
		x := rv.Field(i)
		if x.Kind() == reflect.Float64 && (math.IsNaN(x.Float()) || math.IsInf(x.Float(), 0)) {
			m[name] = nil
			continue
		}
		m[name] = x.Interface()
	}
	return json.Marshal(m)
}

// fillNaN sets every float64 field of the struct *p to NaN, so that
// fields absent or null in JSON read as NaN.
func fillNaN(p any) {
	rv := reflect.ValueOf(p).Elem()
	for i := range rv.NumField() {
		if x := rv.Field(i); x.Kind() == reflect.Float64 {
			x.SetFloat(math.NaN())
		}
	}
}

// MarshalJSON writes NaN fields as null.
func (t Timing) MarshalJSON() ([]byte, error) { type plain Timing; return marshalNaN(plain(t)) }

// UnmarshalJSON reads null fields as NaN.
func (t *Timing) UnmarshalJSON(b []byte) error {
	type plain Timing
	var p plain
	fillNaN(&p)
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*t = Timing(p)
	return nil
}

// MarshalJSON writes NaN fields as null.
func (s SamplerResult) MarshalJSON() ([]byte, error) {
	type plain SamplerResult
	return marshalNaN(plain(s))
}

// UnmarshalJSON reads null fields as NaN.
func (s *SamplerResult) UnmarshalJSON(b []byte) error {
	type plain SamplerResult
	var p plain
	fillNaN(&p)
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*s = SamplerResult(p)
	return nil
}

// MarshalJSON writes NaN fields as null.
func (t TracePoint) MarshalJSON() ([]byte, error) { type plain TracePoint; return marshalNaN(plain(t)) }

// UnmarshalJSON reads null fields as NaN.
func (t *TracePoint) UnmarshalJSON(b []byte) error {
	type plain TracePoint
	var p plain
	fillNaN(&p)
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*t = TracePoint(p)
	return nil
}
