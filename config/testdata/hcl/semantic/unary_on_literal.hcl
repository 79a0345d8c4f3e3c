# hcl2json's converter (not its parser) also fails on these.
agent_profile "default" {
  max_turns = -true # ERROR: Invalid operand
  max_depth = !1 # ERROR: Invalid operand
}
