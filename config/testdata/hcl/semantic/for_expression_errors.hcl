settings {
  observability {
    resource_attrs = { for k in ["a", "a"] : k => "x" } # ERROR: Duplicate object key
    endpoint       = [for x in 5 : x] # ERROR: Iteration over non-iterable value
    service_name   = { a = 1 }.b # ERROR: Unsupported attribute
  }
}
