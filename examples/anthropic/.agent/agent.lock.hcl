# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "claude" {
  source      = "builtin/anthropic"
  version     = "0.1.0"
  resolved_at = "2026-12-03T08:38:24Z"
  checksums = {
    "darwin_amd64"  = "sha256:db4749b8720175bfb003065f77996d1d38ee03086276c706405d526e0d4df699"
    "darwin_arm64"  = "sha256:db4749b8720175bfb003065f77996d1d38ee03086276c706405d526e0d4df699"
    "linux_amd64"   = "sha256:db4749b8720175bfb003065f77996d1d38ee03086276c706405d526e0d4df699"
    "linux_arm64"   = "sha256:db4749b8720175bfb003065f77996d1d38ee03086276c706405d526e0d4df699"
    "windows_amd64" = "sha256:db4749b8720175bfb003065f77996d1d38ee03086276c706405d526e0d4df699"
  }
  envelope = {
    env   = []
    run   = []
    read  = []
    write = []
    net   = ["*"]
  }
  config_schema = [
    {
      name        = "api_key"
      type        = "string"
      required    = true
      sensitive   = true
      description = "The Anthropic API key. A secret: write it as env(\"ANTHROPIC_API_KEY\"); it is sent only to the API (in the Authorization header of its requests) and never logged, echoed or written to an event."
    },
    {
      name         = "base_url"
      type         = "string"
      required     = false
      sensitive    = false
      description  = "The Messages API base URL (http or https, no path credentials). The host must be in the plugin's net envelope: api.anthropic.com:443, or 127.0.0.1 (any port) for a local fake or proxy."
      default_json = "\"https://api.anthropic.com\""
    },
    {
      name         = "default_max_tokens"
      type         = "number"
      required     = false
      sensitive    = false
      description  = "max_tokens when a request sets no max_output_tokens; capped at the model's output limit."
      default_json = "16384"
    },
    {
      name         = "timeout_ms"
      type         = "number"
      required     = false
      sensitive    = false
      description  = "Per-request timeout of the HTTP call in milliseconds (the kernel's own deadline still applies)."
      default_json = "600000"
    },
  ]
}

provider "fs" {
  source      = "builtin/filesystem"
  version     = "0.1.0"
  resolved_at = "2026-12-03T08:38:24Z"
  checksums = {
    "darwin_amd64"  = "sha256:e425bfa2b004324103268b538164803224cc4346a0e5ce98fcf5e6036af24eae"
    "darwin_arm64"  = "sha256:e425bfa2b004324103268b538164803224cc4346a0e5ce98fcf5e6036af24eae"
    "linux_amd64"   = "sha256:e425bfa2b004324103268b538164803224cc4346a0e5ce98fcf5e6036af24eae"
    "linux_arm64"   = "sha256:e425bfa2b004324103268b538164803224cc4346a0e5ce98fcf5e6036af24eae"
    "windows_amd64" = "sha256:e425bfa2b004324103268b538164803224cc4346a0e5ce98fcf5e6036af24eae"
  }
  envelope = {
    env   = []
    run   = []
    read  = ["."]
    write = ["."]
    net   = []
  }
  config_schema = [
    {
      name        = "roots"
      type        = "list(string)"
      required    = true
      sensitive   = false
      description = "Directories the tools may touch. Absolute, or relative to the session's working directory. A path escaping every root, through .. or a symbolic link, is refused."
    },
  ]
  tools = [
    {
      name = "read_file"
      kind = "data_source"
      risk = "read_only"
    },
    {
      name = "write_file"
      kind = "resource"
      risk = "moderate"
    },
    {
      name = "edit_file"
      kind = "resource"
      risk = "moderate"
    },
    {
      name = "multi_edit"
      kind = "resource"
      risk = "moderate"
    },
  ]
}
