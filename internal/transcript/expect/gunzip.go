package expect

import (
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// Gunzip decompresses each of names+".gz" in dir (a database an agent
// wrote, kept compressed in testdata) into to, as names.
func Gunzip(t testing.TB, dir, to string, names ...string) {
	t.Helper()
	for _, n := range names {
		in, err := os.Open(filepath.Join(dir, n+".gz"))
		if err != nil {
			t.Fatal(err)
		}
		z, err := gzip.NewReader(in)
		if err != nil {
			in.Close()
			t.Fatal(err)
		}
		out, err := os.Create(filepath.Join(to, n))
		if err == nil {
			_, err = io.Copy(out, z)
			if cerr := out.Close(); err == nil {
				err = cerr
			}
		}
		in.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
}
