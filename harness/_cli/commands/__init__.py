"""The `harness` subcommands, one module each."""
