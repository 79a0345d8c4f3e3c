# A local OpenAI-compatible server through builtin/openai: Ollama on its
# default port (llama.cpp server, vLLM and LM Studio work the same way with
# their own base_url). No API key; Chat Completions; the model ids are
# declared here, and model_defaults describes them (a local model is free).
#   ollama pull llama3.2 && ollama serve
#   deno run -A main.ts run "What is in notes.md?" --dir examples/openai-compatible

required_providers {
  local = { source = "builtin/openai", version = "~> 0.1" }
  fs    = { source = "builtin/filesystem", version = "~> 0.1" }
}

provider "local" {
  base_url = "http://127.0.0.1:11434/v1"
  api      = "chat"
  models   = ["llama3.2", "qwen2.5-coder:7b"]
  model_defaults = {
    context_window               = 131072
    max_output_tokens            = 8192
    supports_tool_use            = true
    supports_parallel_tool_calls = false
  }
  allow_net = ["127.0.0.1:11434"]
}

provider "fs" {
  roots       = ["."]
  allow_read  = ["."]
  allow_write = ["."]
}

policy "writes_need_approval" {
  match  = { provider = "fs", kind = "resource" }
  action = "ask"
}

policy "reads_ok" {
  match  = { kind = "data_source" }
  action = "allow"
}

agent_profile "default" {
  model {
    primary {
      provider = "local"
      id       = "llama3.2"
    }
  }
  tools            = ["fs.*"]
  max_turns        = 20
  max_wall_clock_s = 600
}
