// Package bundle writes and reads session-handoff bundles: a handoff record
// and its attachments, signed, compressed and encrypted, as one stream.
//
// # Layers
//
// Outside in:
//
//  1. optional ASCII armor: age's own ("-----BEGIN AGE ENCRYPTED FILE-----")
//     when encrypted, so that `age -d` reads it; ours (ArmorHeader) when not;
//  2. age encryption to recipients or to a passphrase (scrypt); absent only
//     when the writer asked for no encryption explicitly;
//  3. one zstd frame;
//  4. a tar archive (ustar; PAX only for sizes ustar cannot hold) of regular
//     files: bundle.dsse.json first, then blobs/sha256/<64 lowercase hex>
//     for each blob in manifest order.
//
// bundle.dsse.json is a DSSE envelope whose payloadType is PayloadType and
// whose payload is the manifest (schema/manifest.schema.json): format,
// version, random bundle id, creation time, producer, an optional signer
// hint, the encryption kind, the hashes of the recipients' canonical strings
// (crypto.RecipientHash), the handoff record, and the blobs (display name,
// media type, size, sha256). Archive paths derive from hashes only, never
// from names, and every byte of a blob is bound to the signed manifest by
// its hash. The result stays readable by the standard tools:
//
//	age -d -i key.txt b.handoff | zstd -d | tar -t
//
// # Reading
//
// Read is streaming, bounded by Limits and fail-closed: it verifies the
// signatures over the exact manifest bytes before parsing them, decides
// trust from the caller's TrustedKeys only, checks every archive entry
// against the manifest, and requires every layer to end cleanly with
// nothing trailing before it reports success. Errors are *Error values
// whose Kind is one of the sentinel errors, for mapping to exit codes.
//
// Notes for the format's spec:
//   - A bundle whose manifest lists recipients is refused with
//     ErrWrongRecipient when none of the reader's recipients is listed,
//     whatever the outer layer actually is (age to someone else, or no
//     encryption at all), so a recipient cannot forward a signed bundle to a
//     third party unnoticed. Manifests with encryption "none" or
//     "passphrase" bind no recipients: such a bundle may arrive
//     re-encrypted (e.g. piped through `age -r`) and reads normally;
//     Result.Encryption reports the layer actually met.
//   - The zstd layer is exactly one frame: skippable frames and further
//     frames, which zstd decoders accept silently, are refused as trailing
//     data.
//   - After the tar end marker only zero padding (at most 20 blocks) may
//     follow.
package bundle
