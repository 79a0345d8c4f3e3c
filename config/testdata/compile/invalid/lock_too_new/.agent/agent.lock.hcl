lock_file_version = 2

provider "readme" {
  source      = "../../_plugins/ctx"
  version     = "0.3.0"
  resolved_at = "2027-01-01T00:00:00Z"
  attestation = "sigstore:..."
}

signature "team" {
  key = "ed25519:..."
}
