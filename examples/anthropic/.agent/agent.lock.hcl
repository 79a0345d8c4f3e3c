# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "claude" {
  source      = "builtin/anthropic"
  version     = "0.1.0"
  resolved_at = "2026-12-03T08:38:09Z"
  checksums = {
    "darwin_amd64"  = "sha256:ae071766469d0b32131a3d071dada25bf79ff41e2b519627a97f8e781f348acf"
    "darwin_arm64"  = "sha256:ae071766469d0b32131a3d071dada25bf79ff41e2b519627a97f8e781f348acf"
    "linux_amd64"   = "sha256:ae071766469d0b32131a3d071dada25bf79ff41e2b519627a97f8e781f348acf"
    "linux_arm64"   = "sha256:ae071766469d0b32131a3d071dada25bf79ff41e2b519627a97f8e781f348acf"
    "windows_amd64" = "sha256:ae071766469d0b32131a3d071dada25bf79ff41e2b519627a97f8e781f348acf"
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
  resolved_at = "2026-12-03T08:38:09Z"
  checksums = {
    "darwin_amd64"  = "sha256:6c4082f7c045ea179844f42678ab8fa7992d57e5c962a7d67ff7c72ee4bfe095"
    "darwin_arm64"  = "sha256:6c4082f7c045ea179844f42678ab8fa7992d57e5c962a7d67ff7c72ee4bfe095"
    "linux_amd64"   = "sha256:6c4082f7c045ea179844f42678ab8fa7992d57e5c962a7d67ff7c72ee4bfe095"
    "linux_arm64"   = "sha256:6c4082f7c045ea179844f42678ab8fa7992d57e5c962a7d67ff7c72ee4bfe095"
    "windows_amd64" = "sha256:6c4082f7c045ea179844f42678ab8fa7992d57e5c962a7d67ff7c72ee4bfe095"
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
