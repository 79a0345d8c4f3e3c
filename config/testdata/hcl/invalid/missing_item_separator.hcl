agent_profile "default" {
  tools = ["fs.*" "grep.search"] # ERROR: Missing item separator
  slash_commands = [
    "summarize"
    "reset" # ERROR: Missing item separator
  ]
}
