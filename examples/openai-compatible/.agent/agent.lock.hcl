# This file is maintained by "agent lock". Do not edit it by hand:
# check-config verifies every provider against it.

lock_file_version = 1

provider "fs" {
  source      = "builtin/filesystem"
  version     = "0.1.0"
  resolved_at = "2026-12-03T08:38:25Z"
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

provider "local" {
  source      = "builtin/openai"
  version     = "0.1.0"
  resolved_at = "2026-12-03T08:38:25Z"
  checksums = {
    "darwin_amd64"  = "sha256:8877dfdd8c2b4da05cb4addd671843b7a90383bfe172bdd6ac7e1b55c5592b38"
    "darwin_arm64"  = "sha256:8877dfdd8c2b4da05cb4addd671843b7a90383bfe172bdd6ac7e1b55c5592b38"
    "linux_amd64"   = "sha256:8877dfdd8c2b4da05cb4addd671843b7a90383bfe172bdd6ac7e1b55c5592b38"
    "linux_arm64"   = "sha256:8877dfdd8c2b4da05cb4addd671843b7a90383bfe172bdd6ac7e1b55c5592b38"
    "windows_amd64" = "sha256:8877dfdd8c2b4da05cb4addd671843b7a90383bfe172bdd6ac7e1b55c5592b38"
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
      required    = false
      sensitive   = true
      description = "The API key, written as env(\"OPENAI_API_KEY\"). Required for OpenAI's own endpoint; optional for OpenAI-compatible servers that need none (Ollama, llama.cpp, LM Studio)."
    },
    {
      name         = "base_url"
      type         = "string"
      required     = false
      sensitive    = false
      description  = "The API root. Point it at any OpenAI-compatible server, e.g. http://127.0.0.1:11434/v1 (Ollama), http://127.0.0.1:8080/v1 (llama.cpp), http://127.0.0.1:8000/v1 (vLLM), http://127.0.0.1:1234/v1 (LM Studio). Its host must be in the plugin's envelope and granted with allow_net."
      default_json = "\"https://api.openai.com/v1\""
    },
    {
      name        = "api"
      type        = "string"
      required    = false
      sensitive   = false
      description = "The wire API: \"responses\" (the Responses API; the default for OpenAI's endpoint) or \"chat\" (Chat Completions; the default for every other base_url, as compatible servers speak it)."
    },
    {
      name        = "models"
      type        = "list(string)"
      required    = false
      sensitive   = false
      description = "The model ids to serve. Default for OpenAI's endpoint: the whole roster (models.json). Required for other servers unless discover = true. Ids the roster does not know get model_defaults."
    },
    {
      name         = "discover"
      type         = "bool"
      required     = false
      sensitive    = false
      description  = "At Configure, list the server's models (GET /models) and serve them too."
      default_json = "false"
    },
    {
      name        = "model_defaults"
      type        = "object"
      required    = false
      sensitive   = false
      description = "The capabilities and pricing of model ids the roster does not know (local or third-party models). Unset prices mean the model is free."
      attributes = [
        {
          name         = "context_window"
          type         = "number"
          required     = false
          sensitive    = false
          description  = "Input token budget."
          default_json = "32768"
        },
        {
          name         = "max_output_tokens"
          type         = "number"
          required     = false
          sensitive    = false
          description  = "Output tokens per response."
          default_json = "4096"
        },
        {
          name         = "supports_tool_use"
          type         = "bool"
          required     = false
          sensitive    = false
          description  = "The model takes tools."
          default_json = "true"
        },
        {
          name         = "supports_vision"
          type         = "bool"
          required     = false
          sensitive    = false
          description  = "The model accepts images."
          default_json = "false"
        },
        {
          name         = "supports_parallel_tool_calls"
          type         = "bool"
          required     = false
          sensitive    = false
          description  = "The model may call several tools in one turn."
          default_json = "false"
        },
        {
          name         = "input_per_mtok"
          type         = "number"
          required     = false
          sensitive    = false
          description  = "USD per million input tokens."
          default_json = "0"
        },
        {
          name         = "output_per_mtok"
          type         = "number"
          required     = false
          sensitive    = false
          description  = "USD per million output tokens."
          default_json = "0"
        },
        {
          name        = "cached_input_per_mtok"
          type        = "number"
          required    = false
          sensitive   = false
          description = "USD per million cached input tokens (unset: the server reports no cache)."
        },
      ]
    },
    {
      name        = "organization"
      type        = "string"
      required    = false
      sensitive   = false
      description = "OpenAI organization id (sent as OpenAI-Organization)."
    },
    {
      name        = "project"
      type        = "string"
      required    = false
      sensitive   = false
      description = "OpenAI project id (sent as OpenAI-Project)."
    },
  ]
}
