package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/subtemper/subtemper/internal/errmsg"
)

// flagSet is a flag.FlagSet with help text that prints every default and
// parsing that accepts flags after positional arguments
// (`subtemper diag draws.csv --json`).
type flagSet struct {
	*flag.FlagSet
	usage    string   // "subtemper gp [flags]"
	intro    string   // paragraphs printed after the usage line
	groups   []string // group headings, in order
	groupOf  map[string]string
	curGroup string
	notes    string // printed after the flags
	set      map[string]bool
}

func newFlagSet(name, usage, intro string) *flagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return &flagSet{FlagSet: fs, usage: usage, intro: intro, groupOf: map[string]string{}}
}

// group starts a group of flags in the help text.
func (f *flagSet) group(name string) {
	f.curGroup = name
	f.groups = append(f.groups, name)
}

// note records the group of flags defined since the last call to group.
func (f *flagSet) mark() {
	f.VisitAll(func(fl *flag.Flag) {
		if _, ok := f.groupOf[fl.Name]; !ok {
			f.groupOf[fl.Name] = f.curGroup
		}
	})
}

// String, Int, ... define flags in the current group.
func (f *flagSet) str(p *string, name, def, help string) {
	f.StringVar(p, name, def, help)
	f.mark()
}

func (f *flagSet) integer(p *int, name string, def int, help string) {
	f.IntVar(p, name, def, help)
	f.mark()
}

func (f *flagSet) uint64(p *uint64, name string, def uint64, help string) {
	f.Uint64Var(p, name, def, help)
	f.mark()
}

func (f *flagSet) float(p *float64, name string, def float64, help string) {
	f.Float64Var(p, name, def, help)
	f.mark()
}

func (f *flagSet) boolean(p *bool, name string, def bool, help string) {
	f.BoolVar(p, name, def, help)
	f.mark()
}

// help writes the full help text: usage, intro, every flag with its
// default (including false, 0 and empty ones), notes.
func (f *flagSet) help(w io.Writer) {
	fmt.Fprintf(w, "Usage: %s\n", f.usage)
	if f.intro != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimRight(f.intro, "\n"))
	}
	groups := f.groups
	if len(groups) == 0 {
		groups = []string{""}
	}
	for _, g := range groups {
		if g != "" {
			fmt.Fprintf(w, "\n%s:\n", g)
		} else {
			fmt.Fprintf(w, "\nFlags:\n")
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		f.VisitAll(func(fl *flag.Flag) {
			if f.groupOf[fl.Name] != g {
				return
			}
			name, usage := flag.UnquoteUsage(fl)
			arg := "--" + fl.Name
			if name != "" {
				arg += " " + name
			}
			def := fl.DefValue
			if def == "" {
				def = `""`
			}
			fmt.Fprintf(tw, "  %s\t%s (default %s)\n", arg, usage, def)
		})
		tw.Flush()
	}
	fmt.Fprintf(w, "\n  --help  print this help and exit\n")
	if f.notes != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimRight(f.notes, "\n"))
	}
}

// parse parses args, allowing flags and positional arguments in any order
// ("--" ends the flags). It returns the positional arguments, errHelp after
// printing the help to out for -h/--help, or a usageError naming the flag.
func (f *flagSet) parse(args []string, out io.Writer) ([]string, error) {
	var pos []string
	for {
		err := f.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			f.help(out)
			return nil, errHelp
		}
		if err != nil {
			return nil, usagef("%v (run `%s --help` for the flags)", cleanFlagErr(err), f.Name())
		}
		rest := f.Args()
		if len(rest) == 0 {
			break
		}
		if len(args) > 0 && len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
			pos = append(pos, rest...)
			break
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
	f.set = map[string]bool{}
	f.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	return pos, nil
}

// isSet reports whether the flag was given on the command line.
func (f *flagSet) isSet(name string) bool { return f.set[name] }

// cleanFlagErr rewrites the flag package's messages to name flags as --x.
func cleanFlagErr(err error) string {
	s := err.Error()
	s = strings.Replace(s, "flag provided but not defined: -", "unknown flag --", 1)
	s = strings.Replace(s, "flag needs an argument: -", "flag needs an argument: --", 1)
	if strings.HasPrefix(s, "invalid value ") {
		// invalid value "x" for flag -n: parse error
		s = strings.Replace(s, " for flag -", " for flag --", 1)
		s = strings.Replace(s, ": parse error", ": not a valid number", 1)
		s = strings.Replace(s, ": value out of range", ": out of range", 1)
	}
	if strings.HasPrefix(s, "invalid boolean value ") {
		s = strings.Replace(s, " for -", " for --", 1)
	}
	return s
}

// Checks shared by the commands; each returns a usageError naming the flag.

func checkPositiveInt(name string, v int) error {
	if v < 1 {
		return usagef("--%s must be a positive integer, got %d", name, v)
	}
	return nil
}

func checkNonNegInt(name string, v int) error {
	if v < 0 {
		return usagef("--%s must be ≥ 0, got %d", name, v)
	}
	return nil
}

func checkPositive(name string, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return usagef("--%s must be positive and finite, got %v", name, v)
	}
	return nil
}

// parseFloatList parses a comma-separated list of numbers for flag name.
func parseFloatList(name, s string) ([]float64, error) {
	if strings.TrimSpace(s) == "" {
		return nil, usagef("--%s is empty; want a comma-separated list of numbers", name)
	}
	parts := strings.Split(s, ",")
	out := make([]float64, len(parts))
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return nil, usagef("--%s: item %d, %q, is not a number", name, i+1, strings.TrimSpace(p))
		}
		out[i] = v
	}
	return out, nil
}

// packagePrefixes are the prefixes that the library packages put at the
// start of their error messages.
var packagePrefixes = []string{"gp: ", "mvn: ", "diag: "}

// inputErr marks err, from a reader of the user's files, as bad input
// (exit code 2), dropping the package prefix ("gp: ", "mvn: ", "diag: ")
// from its message: it names the file, line and column already.
func inputErr(err error) error { return usageError{errmsg.Trim(err, packagePrefixes...)} }

// countOrWord is an integer flag that takes a count ≥ 1 or a word ("none",
// "auto") for what the library spells with a sentinel (tempering.NoWarmup,
// NoBaseSteps, LevelsFromBarrier). The word is stored as 0. A given 0 is
// refused: the library's zero means its default, which leaving the flag
// out gives, while a 0 on the command line reads as "none"; one spelling
// per meaning leaves no doubt.
type countOrWord struct {
	p       *int
	def     int    // the flag's default, named in the refusal of 0
	word    string // the word for the library's sentinel
	meaning string // what the word asks for, in the refusal of 0
}

// Set implements flag.Value.
func (c countOrWord) Set(v string) error {
	if strings.EqualFold(strings.TrimSpace(v), c.word) {
		*c.p = 0
		return nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	switch {
	case err != nil:
		return fmt.Errorf("want a positive integer or %s", c.word)
	case n == 0:
		return fmt.Errorf("0 is ambiguous (the library's zero means the default, %d): say %s for %s", c.def, c.word, c.meaning)
	case n < 0:
		return fmt.Errorf("want a positive integer or %s, got %d", c.word, n)
	}
	*c.p = n
	return nil
}

// Get implements flag.Getter: the count, 0 for the word, so that
// summary.json's flags hold a number for every count flag.
func (c countOrWord) Get() any { return *c.p }

// String implements flag.Value: the count, or the word for 0.
func (c countOrWord) String() string {
	if c.p == nil {
		return ""
	}
	if *c.p == 0 {
		return c.word
	}
	return strconv.Itoa(*c.p)
}

// countOr defines a countOrWord flag in the current group: a count ≥ 1
// with default def, or word (stored as 0) for meaning.
func (f *flagSet) countOr(p *int, name string, def int, word, meaning, help string) {
	*p = def
	f.Var(countOrWord{p: p, def: def, word: word, meaning: meaning}, name, help)
	f.mark()
}
