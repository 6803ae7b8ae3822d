package exchange

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"path/filepath"
	"time"

	"github.com/session-handoff/session-handoff/bundle"
	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/handoff"
	"github.com/session-handoff/session-handoff/internal/redact"
	"github.com/session-handoff/session-handoff/store"
)

// ExportOptions say how a stored handoff becomes a bundle.
type ExportOptions struct {
	// SigningKey signs the bundle; nil writes an unsigned bundle.
	SigningKey *crypto.SigningKey
	// Exactly one of Recipients, Passphrase or NoEncrypt.
	Recipients []crypto.RecipientInfo
	Passphrase []byte
	NoEncrypt  bool
	Armor      bool
	// Attach are files to send along; each becomes an attachment of the
	// exported record (the stored record is not changed).
	Attach []string
	// Blobs are more attachments, made by the caller (the changes patch),
	// sent as they are.
	Blobs []bundle.BlobSource
	// Redactor, when set, removes secrets from the Attach files (the
	// copies that travel; the files themselves are not changed), adding
	// what it removed to Report.
	Redactor *redact.Redactor
	Report   *redact.Report
	Producer bundle.Producer
	Now      time.Time
}

// Export writes rec, with the blobs of its attachments from s and the
// files in opts.Attach, as a bundle to w. It returns the manifest written.
//
// Reading the attachments stops with ctx's error once ctx is done.
func Export(ctx context.Context, w io.Writer, s *store.Store, rec *handoff.Record, opts ExportOptions) (*bundle.Manifest, error) {
	switch {
	case opts.NoEncrypt && (len(opts.Recipients) > 0 || len(opts.Passphrase) > 0):
		return nil, errors.New("no encryption cannot be combined with recipients or a passphrase")
	case len(opts.Recipients) > 0 && len(opts.Passphrase) > 0:
		return nil, errors.New("a bundle goes to recipients or to a passphrase, not both")
	case !opts.NoEncrypt && len(opts.Recipients) == 0 && len(opts.Passphrase) == 0:
		return nil, errors.New("no recipients")
	}
	out := *rec
	if p := rec.Source.Import; p != nil && p.BundleCreatedAt != nil {
		// The time of the bundle this copy came in is this machine's
		// note, not the record's: a receiver that predates it would
		// refuse the field.
		prov := *p
		prov.BundleCreatedAt = nil
		out.Source.Import = &prov
	}
	out.Attachments = append([]handoff.Attachment(nil), rec.Attachments...)
	var sources []bundle.BlobSource
	seen := map[string]bool{}
	for _, at := range rec.Attachments {
		at := at
		seen[at.SHA256] = true
		// A stored blob is named by its hash, which the record gives:
		// no first pass. The store's reader checks the bytes against it
		// as they stream, so Write hashes them no second time.
		sources = append(sources, bundle.BlobSource{
			Blob: bundle.Blob{Name: at.Name, MediaType: at.MediaType, Size: at.Size, SHA256: at.SHA256},
			Open: func() (io.ReadCloser, error) {
				r, _, err := s.OpenBlob(at.SHA256)
				return r, err
			},
			Checked: true,
		})
	}
	for _, path := range opts.Attach {
		var src bundle.BlobSource
		var err error
		if opts.Redactor != nil {
			src, err = redactedBlob(ctx, opts.Redactor, path, opts.Report)
		} else {
			src, err = bundle.FileBlob(ctx, path, filepath.Base(path), mediaType(path))
		}
		if err != nil {
			return nil, fmt.Errorf("attach %s: %w", path, err)
		}
		if seen[src.SHA256] {
			continue
		}
		seen[src.SHA256] = true
		sources = append(sources, src)
		out.Attachments = append(out.Attachments, handoff.Attachment{Name: src.Name, MediaType: src.MediaType, Size: src.Size, SHA256: src.SHA256})
	}
	for _, src := range opts.Blobs {
		if seen[src.SHA256] {
			continue
		}
		seen[src.SHA256] = true
		sources = append(sources, src)
		out.Attachments = append(out.Attachments, handoff.Attachment{Name: src.Name, MediaType: src.MediaType, Size: src.Size, SHA256: src.SHA256})
	}
	id, err := bundle.NewBundleID()
	if err != nil {
		return nil, err
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	m := &bundle.Manifest{
		Format:    bundle.Format,
		Version:   bundle.Version,
		BundleID:  id,
		CreatedAt: now.UTC().Truncate(time.Millisecond),
		Producer:  opts.Producer,
		Record:    &out,
	}
	for _, src := range sources {
		m.Blobs = append(m.Blobs, src.Blob)
	}
	wo := bundle.WriteOptions{Recipients: opts.Recipients, Passphrase: opts.Passphrase, NoEncrypt: opts.NoEncrypt, Armor: opts.Armor}
	if opts.SigningKey != nil {
		wo.SigningKeys = []*crypto.SigningKey{opts.SigningKey}
	}
	if err := bundle.Write(w, m, sources, wo); err != nil {
		return nil, err
	}
	return m, nil
}

// redactedBlob describes the file at path with its secrets removed,
// without writing the redacted copy anywhere: a first pass runs the
// redactor into a hash. If it removed nothing, the blob is the file itself;
// otherwise Open replays the replacements the first pass recorded over the
// file (or, past maxReplayEdits of them, runs the redactor again, into a
// pipe). Redaction depends only on the bytes, and bundle.Write checks the
// hash of what it streams, which holds every byte the first pass kept, and
// the replay checks those it removes, so a file that changes between the
// passes fails the export instead of sending something else.
func redactedBlob(ctx context.Context, r *redact.Redactor, path string, rep *redact.Report) (bundle.BlobSource, error) {
	location := "attachment " + filepath.Base(path)
	f, _, err := bundle.OpenFile(ctx, path)
	if err != nil {
		return bundle.BlobSource{}, err
	}
	defer f.Close()
	found := &redact.Report{}
	edits := redact.NewEdits(maxReplayEdits)
	src, err := bundle.FirstPass(func(w io.Writer) error { return r.CopyEdits(w, f, location, found, edits) })
	if err != nil {
		return bundle.BlobSource{}, err
	}
	src.Name, src.MediaType = filepath.Base(path), mediaType(path)
	if found.Total() == 0 {
		src.Open = func() (io.ReadCloser, error) {
			f, _, err := bundle.OpenFile(ctx, path)
			return f, err
		}
		return src, nil
	}
	if rep != nil {
		rep.Merge(found)
	}
	if !edits.Overflow() {
		src.Open = func() (io.ReadCloser, error) {
			in, _, err := bundle.OpenFile(ctx, path)
			if err != nil {
				return nil, err
			}
			return struct {
				io.Reader
				io.Closer
			}{changedIsMismatch{edits.Replay(in)}, in}, nil
		}
		return src, nil
	}
	src.Open = func() (io.ReadCloser, error) {
		in, _, err := bundle.OpenFile(ctx, path)
		if err != nil {
			return nil, err
		}
		pr, pw := io.Pipe()
		go func() {
			err := r.Copy(pw, in, location, nil)
			in.Close()
			pw.CloseWithError(err)
		}()
		return pr, nil
	}
	return src, nil
}

// maxReplayEdits bounds the replacements the first pass of an attachment
// remembers (about 40 bytes each) for the second to replay; a file with
// more secrets is redacted again instead.
const maxReplayEdits = 1 << 15

// changedIsMismatch reports a replay's redact.ErrInputChanged as the
// bundle.ErrHashMismatch it is.
type changedIsMismatch struct{ r io.Reader }

func (c changedIsMismatch) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if errors.Is(err, redact.ErrInputChanged) {
		err = fmt.Errorf("%w: it changed since it was hashed", bundle.ErrHashMismatch)
	}
	return n, err
}

// mediaType guesses an attachment's media type from its name.
func mediaType(path string) string {
	switch filepath.Ext(path) {
	case ".jsonl", ".ndjson":
		return "application/x-ndjson"
	case ".md":
		return "text/markdown"
	case ".diff", ".patch":
		return "text/x-diff"
	case ".go", ".py", ".rs", ".ts", ".js", ".txt", ".log", ".sh", ".toml", ".yaml", ".yml":
		return "text/plain"
	}
	if t := mime.TypeByExtension(filepath.Ext(path)); t != "" {
		return t
	}
	return "application/octet-stream"
}
