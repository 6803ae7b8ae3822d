// Command gencorpus writes a deterministic corpus of text that looks like
// what session-handoff attaches: agent transcripts (JSONL) and project
// source files. It is the input of bench/bundle.sh.
//
//	go run ./bench/gencorpus -mb 256 -tar corpus.tar   # one tar stream
//	go run ./bench/gencorpus -mb 16 -out corpus/       # a directory tree
//
// The same -mb and -seed always give the same bytes. The text is neither
// constant nor random: words follow a Zipf distribution over a generated
// vocabulary, ids and timestamps vary, code repeats its idioms, so that
// zstd -3 compresses it about 3-5x, like real transcripts and code.
package main

import (
	"archive/tar"
	"bufio"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	mb := flag.Int("mb", 256, "corpus size in MiB (file contents, not counting tar headers)")
	out := flag.String("out", "", "write the corpus as a directory tree here")
	tarPath := flag.String("tar", "", "write the corpus as one tar archive to this file (- for standard output)")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	if (*out == "") == (*tarPath == "") || *mb <= 0 || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: gencorpus [-mb N] [-seed S] (-out DIR | -tar FILE)")
		os.Exit(2)
	}
	var sink sink
	var closeFn func() error
	switch {
	case *tarPath != "":
		var w io.Writer = os.Stdout
		var f *os.File
		if *tarPath != "-" {
			var err error
			if f, err = os.Create(*tarPath); err != nil {
				fatal(err)
			}
			w = f
		}
		bw := bufio.NewWriterSize(w, 1<<20)
		ts := &tarSink{tw: tar.NewWriter(bw)}
		sink = ts
		closeFn = func() error {
			if err := ts.tw.Close(); err != nil {
				return err
			}
			if err := bw.Flush(); err != nil {
				return err
			}
			if f != nil {
				return f.Close()
			}
			return nil
		}
	default:
		sink = &dirSink{root: *out}
		closeFn = func() error { return nil }
	}
	g := newGen(*seed)
	if err := g.corpus(sink, int64(*mb)<<20); err != nil {
		fatal(err)
	}
	if err := closeFn(); err != nil {
		fatal(err)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "gencorpus:", err)
	os.Exit(1)
}

// sink receives the corpus' files in order.
type sink interface {
	file(name string, data []byte) error
}

// epoch is the fixed modification time of every file.
var epoch = time.Date(2025, 11, 1, 0, 0, 0, 0, time.UTC)

type tarSink struct{ tw *tar.Writer }

func (s *tarSink) file(name string, data []byte) error {
	hdr := &tar.Header{Typeflag: tar.TypeReg, Name: name, Size: int64(len(data)), Mode: 0o644,
		ModTime: epoch, Format: tar.FormatUSTAR}
	if err := s.tw.WriteHeader(hdr); err != nil {
		return err
	}
	_, err := s.tw.Write(data)
	return err
}

type dirSink struct{ root string }

func (s *dirSink) file(name string, data []byte) error {
	path := filepath.Join(s.root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return err
	}
	return os.Chtimes(path, epoch, epoch)
}

type gen struct {
	r      *rand.Rand
	words  []string
	zipf   *rand.Zipf
	idents []string
	izipf  *rand.Zipf
	buf    []byte
	tmp    []byte
	t      time.Time
}

var syllables = strings.Fields(`ba be bi bo bu ca ce ci co cu da de di do du fa fe fi fo
	ga ge gi go ka ke ki ko la le li lo lu ma me mi mo mu na ne ni no nu pa pe pi po pu
	ra re ri ro ru sa se si so su ta te ti to tu va ve vi vo za ze zo an en in on er ar
	or st tr pr ch sh th ng nd nt ck ss ll`)

// common are the most frequent words, in rank order, ahead of the
// generated vocabulary.
var common = strings.Fields(`the to a of and is in it that for this we test file
	error the function should be with not on now I will let me check run go bundle
	import export reader writer manifest zstd age tar signature key store record
	handoff limit blob stream hash verify failed passed build return nil err ctx`)

func newGen(seed uint64) *gen {
	r := rand.New(rand.NewPCG(seed, 0x5e55104))
	g := &gen{r: r, t: time.Date(2025, 11, 3, 9, 0, 0, 0, time.UTC)}
	seen := map[string]bool{}
	g.words = append(g.words, common...)
	for _, w := range common {
		seen[w] = true
	}
	for len(g.words) < 6000 {
		n := 1 + r.IntN(4)
		var b strings.Builder
		for range n {
			b.WriteString(syllables[r.IntN(len(syllables))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			g.words = append(g.words, w)
		}
	}
	g.zipf = rand.NewZipf(r, 1.07, 2, uint64(len(g.words)-1))
	for len(g.idents) < 1500 {
		a := g.words[g.zipf.Uint64()]
		b := g.words[g.zipf.Uint64()]
		g.idents = append(g.idents, a+strings.ToUpper(b[:1])+b[1:])
	}
	g.izipf = rand.NewZipf(r, 1.2, 4, uint64(len(g.idents)-1))
	return g
}

func (g *gen) word() string  { return g.words[g.zipf.Uint64()] }
func (g *gen) ident() string { return g.idents[g.izipf.Uint64()] }

func (g *gen) sentence(min, max int) {
	n := min + g.r.IntN(max-min+1)
	for i := range n {
		if i > 0 {
			g.buf = append(g.buf, ' ')
		}
		w := g.word()
		if i == 0 {
			g.buf = append(g.buf, strings.ToUpper(w[:1])...)
			g.buf = append(g.buf, w[1:]...)
		} else {
			g.buf = append(g.buf, w...)
		}
		if g.r.IntN(9) == 0 {
			g.buf = append(g.buf, ',')
		}
	}
	g.buf = append(g.buf, '.')
}

func (g *gen) uuid() {
	a, b := g.r.Uint64(), g.r.Uint64()
	g.buf = fmt.Appendf(g.buf, "%08x-%04x-4%03x-%04x-%012x", a>>32, a>>16&0xffff, a&0xfff, b>>48&0x3fff|0x8000, b&0xffffffffffff)
}

// corpus writes files until total content bytes are written: transcripts
// (about 55%) and source files (about 45%), interleaved.
func (g *gen) corpus(s sink, total int64) error {
	var written int64
	session, srcFile := 0, 0
	for written < total {
		var name string
		if g.r.IntN(100) < 4 {
			session++
			name = fmt.Sprintf("transcripts/%02d/session-%04d.jsonl", session%16, session)
			g.transcript(1<<20 + g.r.IntN(6<<20))
		} else {
			srcFile++
			name = fmt.Sprintf("src/pkg%03d/%s_%d.go", srcFile%97, g.ident(), srcFile)
			g.source(2<<10 + g.r.IntN(48<<10))
		}
		data := g.buf
		if rem := total - written; int64(len(data)) > rem {
			data = data[:rem]
		}
		if err := s.file(name, data); err != nil {
			return err
		}
		written += int64(len(data))
	}
	return nil
}

var tools = []string{"Bash", "Read", "Edit", "Grep", "Write", "Glob"}
var commands = []string{"go test ./...", "go vet ./bundle/", "git status --short", "go build ./cmd/session-handoff",
	"gofmt -l .", "go test -run TestRead ./bundle/", "ls -la", "git diff --stat"}

// transcript fills g.buf with about size bytes of JSONL events.
func (g *gen) transcript(size int) {
	g.buf = g.buf[:0]
	sess := len(g.buf)
	g.uuid()
	sessionID := string(g.buf[sess:])
	g.buf = g.buf[:0]
	parent := "null"
	for len(g.buf) < size {
		g.t = g.t.Add(time.Duration(200+g.r.IntN(90000)) * time.Millisecond)
		g.buf = append(g.buf, `{"parentUuid":`...)
		g.buf = append(g.buf, parent...)
		g.buf = append(g.buf, `,"sessionId":"`...)
		g.buf = append(g.buf, sessionID...)
		g.buf = append(g.buf, `","cwd":"/home/dev/src/session-handoff","version":"2.0.37","uuid":"`...)
		idStart := len(g.buf)
		g.uuid()
		parent = `"` + string(g.buf[idStart:]) + `"`
		g.buf = append(g.buf, `","timestamp":"`...)
		g.buf = g.t.AppendFormat(g.buf, "2006-01-02T15:04:05.000Z")
		g.buf = append(g.buf, `",`...)
		switch k := g.r.IntN(10); {
		case k < 3:
			g.buf = append(g.buf, `"type":"user","message":{"role":"user","content":"`...)
			g.sentence(5, 40)
			g.buf = append(g.buf, `"}}`...)
		case k < 6:
			g.buf = append(g.buf, `"type":"assistant","message":{"model":"claude-sonnet-4-5","role":"assistant","content":[{"type":"text","text":"`...)
			for p := 1 + g.r.IntN(4); p > 0; p-- {
				g.sentence(8, 30)
				g.buf = append(g.buf, ` `...)
			}
			g.buf = fmt.Appendf(g.buf, `"}],"usage":{"input_tokens":%d,"output_tokens":%d,"cache_read_input_tokens":%d}}}`,
				g.r.IntN(4000), g.r.IntN(2000), g.r.IntN(200000))
		case k < 8:
			tool := tools[g.r.IntN(len(tools))]
			g.buf = append(g.buf, `"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_`...)
			g.buf = fmt.Appendf(g.buf, "%016x%08x", g.r.Uint64(), g.r.Uint32())
			g.buf = append(g.buf, `","name":"`...)
			g.buf = append(g.buf, tool...)
			g.buf = append(g.buf, `","input":{"command":"`...)
			g.buf = append(g.buf, commands[g.r.IntN(len(commands))]...)
			g.buf = append(g.buf, `","description":"`...)
			g.sentence(3, 9)
			g.buf = append(g.buf, `"}}]}}`...)
		default:
			// A tool result quoting code, JSON-escaped.
			g.buf = append(g.buf, `"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"`...)
			code := len(g.buf)
			for l := 2 + g.r.IntN(30); l > 0; l-- {
				g.buf = append(g.buf, '\t')
				g.codeLine("\t")
				g.buf = append(g.buf, '\n')
			}
			g.jsonEscapeFrom(code)
			g.buf = append(g.buf, `"}]}}`...)
		}
		g.buf = append(g.buf, '\n')
	}
}

// source fills g.buf with about size bytes of Go-like code.
func (g *gen) source(size int) {
	g.buf = g.buf[:0]
	g.buf = fmt.Appendf(g.buf, "// Package %s ", strings.ToLower(g.ident()))
	g.sentence(6, 20)
	g.buf = fmt.Appendf(g.buf, "\npackage %s\n\nimport (\n\t\"errors\"\n\t\"fmt\"\n\t\"io\"\n)\n\n", strings.ToLower(g.word()))
	for len(g.buf) < size {
		g.buf = append(g.buf, "// "...)
		name := g.ident()
		g.buf = append(g.buf, strings.ToUpper(name[:1])...)
		g.buf = append(g.buf, name[1:]...)
		g.buf = append(g.buf, ' ')
		g.sentence(5, 18)
		g.buf = fmt.Appendf(g.buf, "\nfunc %s%s(%s %s, %s int) (%s, error) {\n",
			strings.ToUpper(name[:1]), name[1:], g.ident(), []string{"io.Reader", "[]byte", "string", "*Options"}[g.r.IntN(4)], g.ident(),
			[]string{"int", "string", "*Result", "[]byte", "bool"}[g.r.IntN(5)])
		for l := 3 + g.r.IntN(25); l > 0; l-- {
			g.buf = append(g.buf, '\t')
			g.codeLine("\t")
			g.buf = append(g.buf, '\n')
		}
		g.buf = append(g.buf, "\treturn nil, nil\n}\n\n"...)
	}
}

// codeLine appends one statement (or a small block) of Go, indented by
// indent, without the final newline.
func (g *gen) codeLine(indent string) {
	a, b := g.ident(), g.ident()
	switch g.r.IntN(8) {
	case 0:
		g.buf = fmt.Appendf(g.buf, "%s, err := %s(%s, %d)", a, b, g.ident(), g.r.IntN(1024))
	case 1:
		g.buf = fmt.Appendf(g.buf, "if err != nil {\n%s\treturn nil, fmt.Errorf(\"%s %s: %%w\", err)\n%s}", indent, g.word(), g.word(), indent)
	case 2:
		g.buf = fmt.Appendf(g.buf, "for _, %s := range %s.%s {\n%s\t%s(%s)\n%s}", a, b, g.ident(), indent, g.ident(), a, indent)
	case 3:
		g.buf = fmt.Appendf(g.buf, "%s += len(%s) * %d", a, b, g.r.IntN(64))
	case 4:
		g.buf = append(g.buf, "// "...)
		g.sentence(4, 14)
	case 5:
		g.buf = fmt.Appendf(g.buf, "if %s == nil || %s > %d {\n%s\treturn %s, nil\n%s}", a, b, g.r.IntN(100000), indent, g.ident(), indent)
	case 6:
		g.buf = fmt.Appendf(g.buf, "%s.%s = append(%s.%s, %s)", a, b, a, b, g.ident())
	default:
		g.buf = fmt.Appendf(g.buf, "%s := errors.New(\"", a)
		g.sentence(3, 8)
		g.buf = append(g.buf, `")`...)
	}
}

// jsonEscapeFrom JSON-escapes g.buf[start:] in place (quotes, backslashes,
// newlines and tabs: all the code generator produces).
func (g *gen) jsonEscapeFrom(start int) {
	g.tmp = append(g.tmp[:0], g.buf[start:]...)
	g.buf = g.buf[:start]
	for _, c := range g.tmp {
		switch c {
		case '"', '\\':
			g.buf = append(g.buf, '\\', c)
		case '\n':
			g.buf = append(g.buf, '\\', 'n')
		case '\t':
			g.buf = append(g.buf, '\\', 't')
		default:
			g.buf = append(g.buf, c)
		}
	}
}
