package bundle

import (
	"bytes"
	"testing"

	"github.com/session-handoff/session-handoff/crypto"
)

// A bundle written unencrypted and then encrypted by someone else: the
// manifest's claim and the outer layer differ, and Result says both.
func TestEncryptionMismatch(t *testing.T) {
	k := loadKeys(t)
	plain := writeBundle(t, testManifest(fixedRecord()), nil, WriteOptions{SigningKeys: []*crypto.SigningKey{k.signer}, NoEncrypt: true})
	res, err := Read(bytes.NewReader(plain), k.readOptions())
	if err != nil {
		t.Fatal(err)
	}
	if c, u, differ := res.EncryptionMismatch(); differ || c != EncryptNone || u != EncryptNone {
		t.Fatalf("as written: %s %s %v", c, u, differ)
	}
	res, err = Read(bytes.NewReader(encryptTo(t, plain, k.id.Recipient())), k.readOptions())
	if err != nil {
		t.Fatal(err)
	}
	if c, u, differ := res.EncryptionMismatch(); !differ || c != EncryptNone || u != EncryptRecipients {
		t.Fatalf("re-encrypted: claimed %s, used %s, differ %v", c, u, differ)
	}
	var none *Result
	if _, _, differ := none.EncryptionMismatch(); differ {
		t.Fatal("nil result")
	}
}
