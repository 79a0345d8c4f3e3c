lock_file_version = 1

provider "readme" {
  source      = "../../_plugins/ctx"
  version     = "~> 0.3"
  resolved_at = "yesterday"
  checksums = {
    "linux_amd64" = "md5:0123"
    "Linux-AMD64" = "sha256:5555555555555555555555555555555555555555555555555555555555555555"
  }
  envelope = {
    env    = []
    read   = "."
    socket = []
  }
  hash = "h1:abc"
}

provider "readme" {
  source      = "../../_plugins/ctx"
  version     = "0.3.0"
  resolved_at = "2026-01-01T00:00:00Z"
  checksums   = {}
}
