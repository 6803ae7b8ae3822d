// Command geninbox writes a git fast-import stream of a team inbox in
// layout 1 or 2 (docs/FORMAT.md §10), for bench/inbox.sh; with -serve it
// serves a directory of bare repositories over smart HTTP instead.
//
//	geninbox -layout 2 -bundles 62500 -people 50 -me HEX -mine DIR | git -C BARE fast-import --quiet
//	geninbox -serve DIR      # prints the URL, serves until killed
//
// My bundles are the *.handoff files of -mine, under their own names; the
// others' are random bytes of -size (encrypted bundles do not compress),
// given to the other people in turn. Paths are written in sorted order,
// which fast-import needs to stay fast on large directories.
package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	layout := flag.Int("layout", 2, "inbox layout: 1 (one branch) or 2 (one ref per recipient)")
	bundles := flag.Int("bundles", 1000, "bundles in the inbox, mine included")
	people := flag.Int("people", 50, "recipients, me included")
	size := flag.Int("size", 2300, "bytes of each of the others' bundles")
	me := flag.String("me", "", "the 64 hex digits of my recipient hash")
	mine := flag.String("mine", "", "a directory of my bundles, <bundle-id>.handoff")
	serve := flag.String("serve", "", "serve the bare repositories under this directory over smart HTTP")
	flag.Parse()
	if *serve != "" {
		if err := serveHTTP(*serve); err != nil {
			fmt.Fprintln(os.Stderr, "geninbox:", err)
			os.Exit(1)
		}
		return
	}
	if (*layout != 1 && *layout != 2) || *people < 2 || len(*me) != 64 || *mine == "" {
		fmt.Fprintln(os.Stderr, "geninbox: want -layout 1|2, -people >= 2, -me HEX and -mine DIR")
		os.Exit(2)
	}
	if err := write(os.Stdout, *layout, *bundles, *people, *size, *me, *mine); err != nil {
		fmt.Fprintln(os.Stderr, "geninbox:", err)
		os.Exit(1)
	}
}

// serveHTTP serves git http-backend for the repositories under root on a
// loopback port the kernel picks, and prints its URL.
func serveHTTP(root string) error {
	gitPath, err := exec.LookPath("git")
	if err != nil {
		return err
	}
	h := &cgi.Handler{Path: gitPath, Args: []string{"http-backend"},
		Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1", "REMOTE_USER=bench"}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Printf("http://%s\n", ln.Addr())
	os.Stdout.Sync()
	return http.Serve(ln, h)
}

type file struct {
	path string
	data []byte
}

func write(out *os.File, layout, bundles, people, size int, me, mineDir string) error {
	w := bufio.NewWriterSize(out, 1<<20)
	names, err := filepath.Glob(filepath.Join(mineDir, "*.handoff"))
	if err != nil {
		return err
	}
	sort.Strings(names)
	var mine []file
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			return err
		}
		mine = append(mine, file{filepath.Base(n), data})
	}
	others := make([]string, people-1)
	for i := range others {
		sum := sha256.Sum256(fmt.Appendf(nil, "person %d", i+1))
		others[i] = hex.EncodeToString(sum[:])
	}
	// Per recipient, sorted: mine first by my hash's place.
	dirs := map[string][]file{me: mine}
	rng := rand.New(rand.NewChaCha8([32]byte{7}))
	for i := 0; i < bundles-len(mine); i++ {
		data := make([]byte, size)
		for j := 0; j < size; j += 8 {
			v := rng.Uint64()
			for k := 0; k < 8 && j+k < size; k++ {
				data[j+k] = byte(v >> (8 * k))
			}
		}
		h := others[i%len(others)]
		dirs[h] = append(dirs[h], file{fmt.Sprintf("%032x.handoff", i), data})
	}
	hexes := append([]string{me}, others...)
	sort.Strings(hexes)
	commit := func(ref string, files []file) {
		fmt.Fprintf(w, "commit %s\ncommitter session-handoff <session-handoff@invalid> 1795424400 +0000\ndata 0\n", ref)
		for _, f := range files {
			fmt.Fprintf(w, "M 100644 inline %s\ndata %d\n", f.path, len(f.data))
			w.Write(f.data)
			w.WriteByte('\n')
		}
		w.WriteByte('\n')
	}
	if layout == 1 {
		files := []file{{"session-handoff-inbox", []byte("session-handoff-inbox 1\n")}}
		logs := make([]strings.Builder, people)
		for _, h := range hexes {
			for i, f := range dirs[h] {
				files = append(files, file{"to/" + h + "/" + f.path, f.data})
				fmt.Fprintf(&logs[i%people], "2026-11-23T09:00:00.000Z\t%s\tsha256:%s\n", strings.TrimSuffix(f.path, ".handoff"), h)
			}
		}
		var logFiles []file
		for i := range logs {
			sum := sha256.Sum256(fmt.Appendf(nil, "sender %d", i))
			logFiles = append(logFiles, file{"log/" + hex.EncodeToString(sum[:]) + ".log", []byte(logs[i].String())})
		}
		sort.Slice(logFiles, func(i, j int) bool { return logFiles[i].path < logFiles[j].path })
		commit("refs/heads/handoffs", append(logFiles, files...))
	} else {
		commit("refs/heads/handoffs", []file{{"session-handoff-inbox", []byte("session-handoff-inbox 2\n")}})
		for _, h := range hexes {
			commit("refs/heads/inbox/"+h, dirs[h])
		}
	}
	return w.Flush()
}
