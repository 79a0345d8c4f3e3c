agent_profile "default" {
  max_turns = 10 max_depth = 2 # ERROR: Missing newline after argument
  tools = ["fs.*"]
}
