provider "claude" {
  system_prompt = <<EOT
You are a careful engineering assistant.
Answer in ${"English"} unless asked otherwise.
Literal template markers are escaped: $${not_a_reference} and %%{not_a_directive}.
EOT

  # An indented heredoc: the common indentation is removed.
  footer = <<-EOT
    Signed,
      the agent
    EOT

  # A heredoc whose closing marker is indented.
  notes = <<NOTES
first line

third line, after a blank one
  NOTES
  empty = <<EOT
EOT
}
