# Non-ASCII text: columns count code points, offsets count UTF-8 bytes.
agent_profile "résumé-writer" {
  tools = ["fs.read_file", "docs.搜索"]
}

provider "claude" {
  system_prompt = "Réponds en français — avec des émojis 🎉 si possible."
  greeting      = "日本語のテキスト"
  escaped       = "caf\u00e9 \U0001F600"
}

hook "post-apply" {
  provider = "journal-ü"
  mode     = "observe"
}
