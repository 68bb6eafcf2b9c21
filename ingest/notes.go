package ingest

// Note is one note's text and, in order, the inputs that have it.
type Note struct {
	Text  string
	Files []string
}

// SharedNotes gathers the notes of files by their text, in the order they
// first appear: a note several inputs share (a format's description of its
// columns, once for each of a trace's shards) comes once, with every input
// that has it, each input once.
func SharedNotes(files []FileResult) []Note {
	var notes []Note
	byText := map[string]int{}
	for _, f := range files {
		for _, n := range f.Notes {
			i, ok := byText[n]
			if !ok {
				i = len(notes)
				byText[n] = i
				notes = append(notes, Note{Text: n})
			}
			nf := &notes[i]
			if k := len(nf.Files); k == 0 || nf.Files[k-1] != f.Path {
				nf.Files = append(nf.Files, f.Path)
			}
		}
	}
	return notes
}
