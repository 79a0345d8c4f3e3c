provider "claude" {
  source      = "github.com/example-org/provider-claude"
  version     = "2.4.1"
  resolved_at = "2026-05-02T10:30:00Z"
  checksums = {
    "linux_amd64"  = "sha256:1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90a"
    "linux_amd64"  = "sha256:2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90a1b" # ERROR: Duplicate object key
  }
}

policy "dup" {
  match  = { provider = "fs", provider = "web" } # ERROR: Duplicate object key
  action = "deny"
}
