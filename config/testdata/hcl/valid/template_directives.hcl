provider "claude" {
  system_prompt = <<-EOT
    %{ if true ~}
    Strict mode is on.
    %{~ endif }
    Tools:
    %{ for i, name in ["fs", "grep"] ~}
    ${i + 1}. ${name}
    %{ endfor ~}
    EOT
  banner = "%{ if 1 > 2 }never%{ else }always%{ endif }"
}
