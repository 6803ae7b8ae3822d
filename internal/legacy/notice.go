package legacy

import (
	"os"
	"path/filepath"

	"github.com/session-handoff/session-handoff/internal/safefile"
)

// NoticeFile is the marker, in the configuration directory, that list has
// told about an old store once.
const NoticeFile = "legacy-store-noticed"

// FindOldStore returns the first of candidates (paths.OldStores) that is a
// regular file, or "".
func FindOldStore(candidates []string) string {
	for _, p := range candidates {
		if st, err := os.Lstat(p); err == nil && st.Mode().IsRegular() {
			return p
		}
	}
	return ""
}

// FirstNotice reports whether the old store has not been told about yet,
// and records that it now has been (NoticeFile in configDir, made
// atomically, so two commands at once tell it once). When the marker
// cannot be written it reports false: a note that cannot be kept from
// repeating is not worth repeating on every list.
func FirstNotice(configDir string) bool {
	if err := os.MkdirAll(configDir, 0o700); err != nil {
		return false
	}
	err := safefile.Create(filepath.Join(configDir, NoticeFile), []byte("session-handoff told about the old handoffs.json; 'doctor' still does\n"), 0o600)
	return err == nil
}
