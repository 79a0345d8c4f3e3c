# This file is maintained automatically by "agent lock".
lock_file_version = 1

provider "claude" {
  source      = "github.com/example-org/provider-claude"
  version     = "2.4.1"
  resolved_at = "2026-05-02T10:30:00Z"
  checksums = {
    "darwin_arm64" = "sha256:0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9"
    "linux_amd64"  = "sha256:1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90a"
    "linux_arm64"  = "sha256:2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90a1b"
  }
}

provider "fs" {
  source      = "gitlab.com/tools-team/provider-fs"
  version     = "0.9.7"
  resolved_at = "2026-05-02T10:30:00Z"
  checksums = {
    "linux_amd64" = "sha256:3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c"
  }
}
