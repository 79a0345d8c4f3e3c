agent_profile "default" {
  max_turns = 10
}
