"""Case and suite reports, their JSON document, the table, JUnit, GitHub output and artifacts."""
