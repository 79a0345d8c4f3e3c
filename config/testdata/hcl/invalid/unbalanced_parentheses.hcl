agent_profile "default" {
  max_turns = (60 * 2 # ERROR@+1: Unbalanced parentheses
  max_depth = 2 # the parentheses swallow the newline
}
