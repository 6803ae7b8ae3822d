package bundle

// Limits bound every resource a reader spends on a bundle. A zero field
// means the default. Each limit that is hit names itself, its value and the
// command-line flag that raises it.
type Limits struct {
	// MaxInput bounds the bytes read from the input (--max-input).
	MaxInput int64
	// MaxDecompressed bounds the bytes the zstd layer actually produces
	// (--max-decompressed). The size a zstd frame header declares is only
	// a claim and is not trusted.
	MaxDecompressed int64
	// MaxWindow bounds the zstd window, hence the decoder's memory
	// (--max-window).
	MaxWindow int64
	// MaxEntries bounds the number of tar entries (--max-entries).
	MaxEntries int
	// MaxEntrySize bounds the size of one blob (--max-entry-size).
	MaxEntrySize int64
	// MaxManifest bounds the size of bundle.dsse.json, the signed
	// envelope holding the manifest (--max-manifest).
	MaxManifest int64
	// MaxScryptWorkFactor bounds the scrypt work factor (log2 N) of a
	// passphrase bundle (--max-scrypt-work-factor). age derives with r=8
	// and p=1, so a work factor w costs 2^(w+10) bytes of memory and
	// 2^(w+3) block mixes: 18 (what Write and the age tool use) 256 MiB.
	// The default, 20 (1 GiB, a few seconds), leaves room for files tuned
	// on a faster machine; age's own limit of 22 let a 1 KB file cost
	// 4 GiB and half a minute.
	MaxScryptWorkFactor int
}

// Default limits.
const (
	DefaultMaxInput            = 1 << 30
	DefaultMaxDecompressed     = 1 << 30
	DefaultMaxWindow           = 64 << 20
	DefaultMaxEntries          = 10_000
	DefaultMaxEntrySize        = 512 << 20
	DefaultMaxManifest         = 8 << 20
	DefaultMaxScryptWorkFactor = 20
)

// Flag names used in limit errors.
const (
	flagMaxInput        = "--max-input"
	flagMaxDecompressed = "--max-decompressed"
	flagMaxWindow       = "--max-window"
	flagMaxEntries      = "--max-entries"
	flagMaxEntrySize    = "--max-entry-size"
	flagMaxManifest     = "--max-manifest"
	flagMaxScrypt       = "--max-scrypt-work-factor"
)

// DefaultLimits returns the limits used when a field of Limits is zero.
func DefaultLimits() Limits {
	return Limits{
		MaxInput:            DefaultMaxInput,
		MaxDecompressed:     DefaultMaxDecompressed,
		MaxWindow:           DefaultMaxWindow,
		MaxEntries:          DefaultMaxEntries,
		MaxEntrySize:        DefaultMaxEntrySize,
		MaxManifest:         DefaultMaxManifest,
		MaxScryptWorkFactor: DefaultMaxScryptWorkFactor,
	}
}

// withDefaults fills zero (or negative) fields with the defaults and clamps
// values the underlying libraries cannot take.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxInput <= 0 {
		l.MaxInput = d.MaxInput
	}
	if l.MaxDecompressed <= 0 {
		l.MaxDecompressed = d.MaxDecompressed
	}
	if l.MaxWindow <= 0 {
		l.MaxWindow = d.MaxWindow
	}
	if l.MaxWindow < 1<<10 {
		l.MaxWindow = 1 << 10 // zstd's minimum window
	}
	if l.MaxEntries <= 0 {
		l.MaxEntries = d.MaxEntries
	}
	if l.MaxEntrySize <= 0 {
		l.MaxEntrySize = d.MaxEntrySize
	}
	if l.MaxManifest <= 0 {
		l.MaxManifest = d.MaxManifest
	}
	if l.MaxScryptWorkFactor <= 0 {
		l.MaxScryptWorkFactor = d.MaxScryptWorkFactor
	}
	if l.MaxScryptWorkFactor > 30 {
		l.MaxScryptWorkFactor = 30 // age's own ceiling
	}
	return l
}
