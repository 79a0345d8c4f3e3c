agent_profile "default" {
  max_cost_usd = 2.50.1 # ERROR: Invalid number literal
  max_turns    = [10, 20].0.1 # ERROR: Invalid legacy index syntax
}
