# ERROR@EOF: Unterminated template string
provider "claude" {
  system_prompt = <<EOT
You are helpful.
EOT is not the marker when other text follows it
}
