package exchange

import (
	"io"
	"runtime"
	"sync"
	"time"

	"github.com/session-handoff/session-handoff/bundle"
	"github.com/session-handoff/session-handoff/crypto"
	"github.com/session-handoff/session-handoff/store"
)

// ManyOptions are the bundles of one ImportMany and how to import them.
type ManyOptions struct {
	// N is the number of bundles; Open(i) gives bundle i. Open is called
	// from one goroutine at a time: first for each bundle in order, and
	// again for a bundle imported alone (see ImportMany).
	N    int
	Open func(i int) (io.ReadCloser, error)
	// Check, when not nil, adds the caller's own checks of bundle i to
	// what reading it found (res may be nil): it returns the error that
	// stands, err or its own.
	Check func(i int, res *bundle.Result, err error) error

	Store  *store.Store
	Keys   Keyring
	Read   bundle.ReadOptions
	Policy Policy
	Now    time.Time
}

// ManyResult is what ImportMany did with one bundle.
type ManyResult struct {
	// Read is what reading the bundle found: nil when it could not be
	// opened, partial when it failed.
	Read *bundle.Result
	// ReadErr refuses the bundle itself: it could not be opened or read,
	// or it failed a check of bundle.Read, acceptRead or ManyOptions.Check.
	// Nothing of it was stored.
	ReadErr error
	// Result and Err are the import's, as Import returns them, for a
	// bundle that was read: what the policy and the store said.
	Result *ImportResult
	Err    error
}

// ImportMany imports the bundles of o as Import imports one, at a lower
// cost: the bundles are read (decrypted, their signatures and hashes
// checked) on GOMAXPROCS goroutines, and the records stored in one
// store.Batch, with one append to the index and the fewest fsyncs. The
// results are in the order of the bundles; records are stored in that
// order. A bundle whose import would pin its signer (Policy.TOFU) is
// imported alone afterwards, reopened, against the trust store as it was
// when the batch began: a key pinned by an earlier bundle of the batch is
// pinned for the later ones too, never "verified" by that pin, so that
// one receive of a stranger's bundles never makes any of them vouched for
// (handoff.Source.Vouched). The error is the store's (its lock, the index):
// records the batch stored before it stay stored.
func ImportMany(o ManyOptions) ([]ManyResult, error) {
	out := make([]ManyResult, o.N)
	if o.N == 0 {
		return out, nil
	}
	trust, err := o.Keys.TrustStore()
	if err != nil {
		return nil, err
	}
	staging, err := o.Store.NewStaging()
	if err != nil {
		return nil, err
	}
	defer staging.Close()
	type job struct {
		i int
		f io.ReadCloser
	}
	jobs := make(chan job)
	go func() {
		defer close(jobs)
		for i := range o.N {
			f, err := o.Open(i)
			if err != nil {
				out[i].ReadErr = err
				continue
			}
			jobs <- job{i, f}
		}
	}()
	pins := make([]bool, o.N)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), o.N) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				pins[j.i] = o.read(j.i, j.f, &out[j.i], trust, staging)
				j.f.Close()
			}
		}()
	}
	wg.Wait()
	err = o.Store.Batch(func(b *store.Batch) error {
		for i := range out {
			if it := &out[i]; it.Result != nil && !pins[i] {
				it.Err = commit(b, staging, it.Result, o.Policy)
				if it.Err != nil {
					it.Result = nil
				}
			}
		}
		return nil
	})
	if err != nil {
		return out, err
	}
	for i := range out {
		if it := &out[i]; it.Result != nil && !pins[i] {
			keepHeaders(o.Store, it.Result)
		}
	}
	for i := range out {
		if !pins[i] {
			continue
		}
		f, err := o.Open(i)
		if err != nil {
			out[i].Result, out[i].Err = nil, err
			continue
		}
		// Judged against the trust store as the batch began: a pin made
		// by an earlier bundle of this batch vouches for none of it.
		out[i].Result, out[i].Err = importWith(f, o.Store, o.Keys, o.Read, o.Policy, o.Now, trust)
		f.Close()
	}
	return out, nil
}

// read reads bundle i from f into a staging directory of its own and
// judges it, filling it; it reports whether its import would pin its
// signer.
func (o ManyOptions) read(i int, f io.Reader, it *ManyResult, trust *crypto.TrustStore, staging *store.Staging) (pin bool) {
	ropts := o.Read
	ropts.Trusted = trust
	ropts.BlobDir = staging.Sub()
	var err error
	it.Read, err = bundle.Read(f, ropts)
	if o.Check != nil {
		err = o.Check(i, it.Read, err)
	}
	if it.ReadErr = acceptRead(it.Read, err, o.Policy); it.ReadErr != nil {
		return false
	}
	rec, p, err := judge(it.Read, trust, o.Policy, o.Now)
	if err != nil {
		it.Err = err
		return false
	}
	it.Result = newResult(rec, it.Read, trust)
	return p != nil
}
