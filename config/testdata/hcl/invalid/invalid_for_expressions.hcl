settings {
  observability {
    resource_attrs = { for k in ["a"] : k } # ERROR: Invalid 'for' expression
  }
}
agent_profile "default" {
  tools = [for t in ["fs"] : t...] # ERROR: Invalid 'for' expression
}
