// Package doclinks holds a test that the relative links of the
// repository's Markdown documents (README.md and docs/*.md) resolve.
package doclinks

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// link matches an inline Markdown link or image: [text](target) or
// [text](target "title").
var link = regexp.MustCompile(`\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// code matches a fenced code block or an inline code span, whose content
// is not Markdown.
var code = regexp.MustCompile("(?s)```.*?```|`[^`\n]*`")

// TestLinksResolve checks that every relative link in README.md and
// docs/*.md names a file or folder of the repository (the #fragment is
// not checked; absolute URLs are not followed).
func TestLinksResolve(t *testing.T) {
	root := filepath.Join("..", "..")
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	docs = append([]string{filepath.Join(root, "README.md")}, docs...)
	n := 0
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		text := code.ReplaceAllString(string(b), "")
		for _, m := range link.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") || strings.HasPrefix(target, "#") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			n++
			p := filepath.Join(filepath.Dir(doc), filepath.FromSlash(target))
			if _, err := os.Stat(p); err != nil {
				rel, _ := filepath.Rel(root, doc)
				t.Errorf("%s: link %q does not resolve: %v", rel, m[1], err)
			}
		}
	}
	if n == 0 {
		t.Error("no relative links found: is the pattern right?")
	}
	t.Logf("%d relative links in %d documents resolve", n, len(docs))
}
