package reports

import (
	"html"
	"regexp"
	"strings"
)

// A table's cells are aligned by what they hold, so every table of the
// page follows one rule without each template marking its columns: a
// number (with its unit, a duration, a percentage, a range or ratio of
// them, a parenthetical remark after it) is right-aligned, so its digits
// line up; text is left-aligned, so it reads from its start. A header
// takes its column's alignment: right over a column of numbers. A missing
// value ("–") sits where the numbers of its column do.

var (
	tableRE = regexp.MustCompile(`(?s)<table[ >].*?</table>`)
	rowRE   = regexp.MustCompile(`(?s)<tr[ >].*?</tr>`)
	cellRE  = regexp.MustCompile(`(?s)<(td|th)((?: [^>]*)?)>(.*?)</(?:td|th)>`)
	tagRE   = regexp.MustCompile(`<[^>]*>`)
	classRE = regexp.MustCompile(`class="([^"]*)"`)
	spanRE  = regexp.MustCompile(`colspan="(\d+)"`)

	// numberRE is a cell that holds a number: one or more quantities
	// joined by "/", "–", "-", "to", "of" or ",", each an optional sign and a
	// number with an optional one-word unit, or a duration (1h11m13s),
	// then optional parenthetical remarks.
	numberRE = regexp.MustCompile(`^` + quantity + `(?:\s*(?:/|–|-|to|of|,)\s*` + quantity + `)*(?:\s*\([^()]*\))*$`)
)

const quantity = `(?:[-+−~≈≤≥<>×]\s*)?(?:` +
	`(?:\d+(?:\.\d+)?(?:ms|d|h|m|s))+` + // a duration
	`|(?:\d[\d,]*(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?(?:\s*(?:%|×|[\pL·/²µ]{1,14}))?` + // a number and its unit
	`)`

// isNumber says whether a cell's text is a number (numberRE).
func isNumber(text string) bool {
	return numberRE.MatchString(strings.TrimSpace(text))
}

// isMissing says whether a cell's text stands for a missing value.
func isMissing(text string) bool {
	switch strings.TrimSpace(text) {
	case "", "–", "—", "-", "n/a":
		return true
	}
	return false
}

// cellText is a cell's content as the reader sees it: tags taken out,
// entities decoded.
func cellText(inner string) string {
	return html.UnescapeString(tagRE.ReplaceAllString(inner, ""))
}

// alignTables gives every cell of the page's tables the class "n" (a
// number, right-aligned) or "t" (text, left-aligned).
func alignTables(page []byte) []byte {
	return tableRE.ReplaceAllFunc(page, func(table []byte) []byte {
		rows := rowRE.FindAllIndex(table, -1)
		// A column holds numbers when its data cells are numbers or
		// missing values, one at least a number.
		numbers, text := map[int]bool{}, map[int]bool{}
		for _, r := range rows {
			col := 0
			for _, c := range cellRE.FindAllSubmatch(table[r[0]:r[1]], -1) {
				span := colspan(c[2])
				if string(c[1]) == "td" && span == 1 {
					t := cellText(string(c[3]))
					switch {
					case isNumber(t):
						numbers[col] = true
					case !isMissing(t):
						text[col] = true
					}
				}
				col += span
			}
		}
		numeric := func(col int) bool { return numbers[col] && !text[col] }
		var out []byte
		last := 0
		for _, r := range rows {
			out = append(out, table[last:r[0]]...)
			col := 0
			row := cellRE.ReplaceAllFunc(table[r[0]:r[1]], func(cell []byte) []byte {
				c := cellRE.FindSubmatch(cell)
				span := colspan(c[2])
				t := cellText(string(c[3]))
				right := isNumber(t)
				switch {
				case string(c[1]) == "th":
					right = span == 1 && numeric(col)
				case isMissing(t):
					right = numeric(col)
				}
				col += span
				cls := "t"
				if right {
					cls = "n"
				}
				return withClass(c, cls)
			})
			out = append(out, row...)
			last = r[1]
		}
		return append(out, table[last:]...)
	})
}

// colspan is a cell's colspan attribute, 1 without one.
func colspan(attrs []byte) int {
	m := spanRE.FindSubmatch(attrs)
	if m == nil {
		return 1
	}
	n := 0
	for _, d := range m[1] {
		n = 10*n + int(d-'0')
		if n > 1000 {
			return 1000
		}
	}
	return max(n, 1)
}

// withClass rewrites a matched cell with cls added to its classes.
func withClass(c [][]byte, cls string) []byte {
	tag, attrs, inner := string(c[1]), string(c[2]), c[3]
	if m := classRE.FindStringSubmatchIndex(attrs); m != nil {
		attrs = attrs[:m[3]] + " " + cls + attrs[m[3]:]
	} else {
		attrs += ` class="` + cls + `"`
	}
	var b strings.Builder
	b.WriteString("<" + tag + attrs + ">")
	b.Write(inner)
	b.WriteString("</" + tag + ">")
	return []byte(b.String())
}
