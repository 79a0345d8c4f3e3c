provider "claude" = { # ERROR: Invalid block definition
  api_key = env("CLAUDE_API_KEY")
}
