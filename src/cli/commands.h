// Each subcommand registers itself on the CLI11 app and records its exit code when it runs.
#pragma once

#include <CLI/CLI.hpp>

namespace sluice::cli {

/// `sluice schema show|convert|fingerprint|formats`.
void RegisterSchemaCommand(CLI::App& app, int& exit_code);
/// `sluice diff OLD NEW`.
void RegisterDiffCommand(CLI::App& app, int& exit_code);
/// `sluice compat V1 [V2 ...] NEW`.
void RegisterCompatCommand(CLI::App& app, int& exit_code);
/// `sluice merge TABLE_SCHEMA INCOMING`.
void RegisterMergeCommand(CLI::App& app, int& exit_code);
/// `sluice check SCHEMA --contract CONTRACT`.
void RegisterCheckCommand(CLI::App& app, int& exit_code);
/// `sluice validate FILE... (--schema S | --contract C)`.
void RegisterValidateCommand(CLI::App& app, int& exit_code);
/// `sluice cat FILE...`: records as JSON lines.
void RegisterCatCommand(CLI::App& app, int& exit_code);
/// `sluice infer FILE...`.
void RegisterInferCommand(CLI::App& app, int& exit_code);
/// `sluice registry serve|register|get|list|versions|compat|config|delete|hash-password`.
void RegisterRegistryCommand(CLI::App& app, int& exit_code);
/// `sluice ingest SOURCE --to TABLE --checkpoint CKPT`.
void RegisterIngestCommand(CLI::App& app, int& exit_code);
/// `sluice decode FILE` and `sluice encode FILE.jsonl` (Confluent-framed Avro messages).
void RegisterWireCommands(CLI::App& app, int& exit_code);
/// `sluice sqlgen check --contract C --relation R --dialect D`: contract checks as SQL, dbt tests.
void RegisterSqlgenCommand(CLI::App& app, int& exit_code);

/// `sluice align SCHEMA... --dialect spark|duckdb|dbt`.
void RegisterAlignCommand(CLI::App& app, int& exit_code);

/// `sluice drift check|watch|deliver`: schema drift against baselines, and alerts.
void RegisterDriftCommand(CLI::App& app, int& exit_code);

/// `sluice ui --listen HOST:PORT [--registry URL] [--table NAME=PATH]...`: the web UI alone.
void RegisterUiCommand(CLI::App& app, int& exit_code);

}  // namespace sluice::cli
