agent_profile "default" {
  max_turns        = 10 + true # ERROR: Invalid operand
  max_cost_usd     = 1 / 0 # ERROR: Division by zero
  max_wall_clock_s = "ten" * 60 # ERROR: Invalid operand
  max_depth        = !"yes" # ERROR: Invalid operand
  tools            = "fs.${["a"]}" # ERROR: Invalid template interpolation value
  slash_commands   = ["a", "b"][2] # ERROR: Invalid index
}

settings {
  log_level = "level-${null}" # ERROR: Invalid template interpolation value
  telemetry = true ? "yes" : ["no"] # ERROR: Inconsistent conditional result types
}
