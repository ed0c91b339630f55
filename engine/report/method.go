package report

import (
	_ "embed"
	"html"
	"html/template"
	"regexp"
	"strings"
)

// methodMarkdown is METHOD.md, the measurement contract. //go:embed cannot
// reach outside the package folder, so method.md is a copy of
// docs/METHOD.md; a test keeps the two equal.
//
//go:embed method.md
var methodMarkdown string

// developerNote is METHOD.md's sentence for those who change the code; a
// report's reader cannot act on it, so the report leaves it out.
const developerNote = " Change this file only together with the code."

var (
	mdCode = regexp.MustCompile("`([^`]+)`")
	mdBold = regexp.MustCompile(`\*\*([^*]+)\*\*`)
)

// methodHTML renders METHOD.md for the report's methodology section. It
// understands only what that file uses: "#"/"##" headings, "-" bullets
// (nested by indentation), numbered items, paragraphs, `code` and **bold**.
// Text is escaped before the inline markup is turned into tags.
func methodHTML() template.HTML {
	var b strings.Builder
	var para []string
	depth := 0 // open <ul>/<ol> levels
	var lists []string
	flush := func() {
		if len(para) > 0 {
			b.WriteString("<p>" + inline(strings.Join(para, " ")) + "</p>\n")
			para = nil
		}
	}
	closeLists := func(to int) {
		for depth > to {
			b.WriteString("</li></" + lists[depth-1] + ">\n")
			lists = lists[:depth-1]
			depth--
		}
	}
	blank := false // the line before was empty
	for _, line := range strings.Split(strings.Replace(methodMarkdown, developerNote, "", 1), "\n") {
		trim := strings.TrimSpace(line)
		if afterBlank := blank; trim != "" {
			blank = false
			// A paragraph that starts at the margin after an empty line
			// ends the lists above it (Markdown's rule); an indented one
			// continues the item.
			if afterBlank && depth > 0 && !strings.HasPrefix(line, " ") && !strings.HasPrefix(trim, "- ") {
				closeLists(0)
			}
		}
		indent := (len(line) - len(strings.TrimLeft(line, " "))) / 3
		kind, text := "", trim
		switch {
		case strings.HasPrefix(trim, "- "):
			kind, text = "ul", trim[2:]
		case len(trim) > 2 && trim[0] >= '0' && trim[0] <= '9' && strings.HasPrefix(trim[1:], ". "):
			kind, text = "ol", trim[3:]
		}
		switch {
		case trim == "":
			flush()
			blank = true
		case strings.HasPrefix(trim, "#"):
			flush()
			closeLists(0)
			level := len(trim) - len(strings.TrimLeft(trim, "#"))
			if level == 1 {
				continue // the report has its own section heading
			}
			b.WriteString("<h3>" + inline(strings.TrimSpace(trim[level:])) + "</h3>\n")
		case kind != "":
			flush()
			want := indent + 1
			if want > depth+1 {
				want = depth + 1
			}
			switch {
			case want > depth:
				b.WriteString("<" + kind + "><li>")
				lists = append(lists, kind)
				depth++
			default:
				closeLists(want)
				b.WriteString("</li><li>")
			}
			b.WriteString(inline(text))
		case depth > 0:
			b.WriteString(" " + inline(trim)) // continuation of a list item
		default:
			para = append(para, trim)
		}
	}
	flush()
	closeLists(0)
	return template.HTML(b.String()) // #nosec: built from escaped text
}

// inline escapes s and then turns `code` and **bold** into tags.
func inline(s string) string {
	s = html.EscapeString(s)
	s = mdCode.ReplaceAllString(s, "<code>$1</code>")
	return mdBold.ReplaceAllString(s, "<strong>$1</strong>")
}
