agent_profile "default" {
  max_turns = max(10, 20) # ERROR: Call to unknown function
}

provider "claude" {
  base_url = lower("HTTPS://LLM.EXAMPLE") # ERROR: Call to unknown function
  region   = envv("REGION") # ERROR: Call to unknown function
}
