"""TPS-Bench (compounding tasks of dependent subtasks over MCP servers): its plugin modules."""
