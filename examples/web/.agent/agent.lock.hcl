# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "scripted" {
  source      = "builtin/scripted"
  version     = "0.1.0"
  resolved_at = "2026-12-03T08:38:25Z"
  checksums = {
    "darwin_amd64"  = "sha256:76117d01d51a265f410ad5c7ca50fd6430d8d2fe9740a50ea44d4875a170740d"
    "darwin_arm64"  = "sha256:76117d01d51a265f410ad5c7ca50fd6430d8d2fe9740a50ea44d4875a170740d"
    "linux_amd64"   = "sha256:76117d01d51a265f410ad5c7ca50fd6430d8d2fe9740a50ea44d4875a170740d"
    "linux_arm64"   = "sha256:76117d01d51a265f410ad5c7ca50fd6430d8d2fe9740a50ea44d4875a170740d"
    "windows_amd64" = "sha256:76117d01d51a265f410ad5c7ca50fd6430d8d2fe9740a50ea44d4875a170740d"
  }
  envelope = {
    env   = []
    run   = []
    read  = ["."]
    write = []
    net   = []
  }
  config_schema = [
    {
      name        = "script"
      type        = "string"
      required    = false
      sensitive   = false
      description = "Absolute path of the script file (JSON) to replay; the file must lie where the plugin may read (the kernel's working directory, granted with allow_read). Set script or turns_json."
    },
    {
      name        = "turns_json"
      type        = "string"
      required    = false
      sensitive   = false
      description = "The script inline, as JSON text: a script object or a bare list of turns. Set script or turns_json."
    },
  ]
}

provider "web" {
  source      = "builtin/web"
  version     = "0.1.0"
  resolved_at = "2026-12-03T08:38:25Z"
  checksums = {
    "darwin_amd64"  = "sha256:d82a63d3b0dc30bd266202aadb5a26c41b8195a473f4dc1366a647b37ba82153"
    "darwin_arm64"  = "sha256:d82a63d3b0dc30bd266202aadb5a26c41b8195a473f4dc1366a647b37ba82153"
    "linux_amd64"   = "sha256:d82a63d3b0dc30bd266202aadb5a26c41b8195a473f4dc1366a647b37ba82153"
    "linux_arm64"   = "sha256:d82a63d3b0dc30bd266202aadb5a26c41b8195a473f4dc1366a647b37ba82153"
    "windows_amd64" = "sha256:d82a63d3b0dc30bd266202aadb5a26c41b8195a473f4dc1366a647b37ba82153"
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
      name         = "max_bytes"
      type         = "number"
      required     = false
      sensitive    = false
      description  = "Most bytes of a response body downloaded (streamed; the rest is not read)."
      default_json = "2097152"
    },
    {
      name         = "max_chars"
      type         = "number"
      required     = false
      sensitive    = false
      description  = "Most characters of converted output returned; a call's max_chars may ask for fewer."
      default_json = "100000"
    },
    {
      name         = "timeout_seconds"
      type         = "number"
      required     = false
      sensitive    = false
      description  = "Deadline of one fetch, redirects included."
      default_json = "30"
    },
    {
      name         = "max_redirects"
      type         = "number"
      required     = false
      sensitive    = false
      description  = "Most redirects followed; every hop's host must be granted with allow_net."
      default_json = "5"
    },
    {
      name         = "user_agent"
      type         = "string"
      required     = false
      sensitive    = false
      description  = "The User-Agent header sent."
      default_json = "\"ph-agent-web_fetch/0.1\""
    },
  ]
  tools = [
    {
      name = "web_fetch"
      kind = "data_source"
      risk = "read_only"
    },
  ]
}
