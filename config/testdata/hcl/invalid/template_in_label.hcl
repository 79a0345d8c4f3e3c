provider "${name}" { # ERROR: Invalid string literal
  roots = ["."]
}
