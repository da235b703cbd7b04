// Package errmsg shortens error messages whose context a caller states
// itself, so that messages say each context once ("--sigma: s.csv:2: …",
// not "--sigma: mvn: s.csv:2: …").
package errmsg

import "strings"

// Trim returns err with the given prefixes, in order, removed from the
// start of its message: `fmt.Errorf("--standardize: %w", Trim(err, "gp: ",
// "standardize: "))` rather than "--standardize: gp: standardize: …". The
// result unwraps to err; Trim(nil) is nil.
func Trim(err error, prefixes ...string) error {
	if err == nil {
		return nil
	}
	return trimmed{err, prefixes}
}

// trimmed is err with a message that lacks prefixes; see Trim.
type trimmed struct {
	err      error
	prefixes []string
}

func (e trimmed) Error() string {
	s := e.err.Error()
	for _, p := range e.prefixes {
		s = strings.TrimPrefix(s, p)
	}
	return s
}

func (e trimmed) Unwrap() error { return e.err }
