//! The integration tests, in one binary (one link of the clawrun library instead of one per
//! test file). Each file is a module; the support modules they share are declared here once.

#[path = "../browser/mod.rs"]
mod browser;
#[path = "../common/mod.rs"]
mod common;
#[path = "../external/mod.rs"]
mod external;
#[path = "../fs_support/mod.rs"]
mod fs_support;
#[path = "../fuzz_agents/mod.rs"]
mod fuzz_agents;
#[path = "../mock_model/mod.rs"]
mod mock_model;
#[path = "../pyref_support/mod.rs"]
mod pyref_support;
#[path = "../services_support/mod.rs"]
mod services_support;
#[path = "../web_support/mod.rs"]
mod web_support;

mod adversarial_run;
mod adversarial_services;
mod adversarial_trial;
mod agent_cmd;
mod bash_curl;
mod bash_differential;
mod browser_recording;
mod browser_tool;
mod claw_eval_graders;
mod claw_eval_grading_cli;
mod claw_eval_media;
mod cli_conventions;
mod cli_exec;
mod cli_help;
mod compile_cache;
mod crash_safety;
mod determinism;
mod export_cli;
mod faults;
mod faults_sandbox;
mod fuzz;
mod golden;
mod guest_http;
mod journal_untrusted;
mod limits;
mod mcp;
mod media;
mod mock_llm_cli;
mod model_eval;
mod python;
mod read_media;
mod readme_examples;
mod realtime_backstop;
mod rejudge;
mod rejudge_evidence;
mod replay_cli;
mod report_cli;
mod report_files;
mod runs;
mod schemas;
mod selection_settings;
mod services_business;
mod services_calendar;
mod services_documents;
mod services_engine;
mod services_gmail;
mod services_helpdesk_crm;
mod services_loopback;
mod services_media;
mod slurm;
mod task_numbers;
mod task_status;
mod tool_presentation;
mod tools;
mod trial_e2e;
mod validate;
mod view;
mod wasi_conformance;
mod wasi_fs;
mod web_real;
