//! The command line: the clap definitions of every command, and the dispatch to its file in
//! `commands/`.

use crate::commands::explain::ExplainArgs;
use crate::commands::init::InitArgs;
use crate::commands::man::ManArgs;
use crate::commands::plan::PlanArgs;
use crate::commands::render::RenderArgs;
use crate::commands::verify::VerifyArgs;
use crate::commands::{self, emit};
use crate::schema;
use clap::{ArgMatches, Args, CommandFactory, FromArgMatches, Parser, Subcommand};

pub use crate::commands::Outcome;

/// Plan, lint and render hybrid Linux + Windows Kubernetes clusters on flannel.
#[derive(Debug, Parser)]
#[command(
    name = "hybridgen",
    version,
    about,
    propagate_version = true,
    after_help = "Typical use:\n  hybridgen init cluster.yaml                  # a commented starter spec\n  hybridgen plan cluster.yaml                  # lint it and print the IP plan\n  hybridgen render cluster.yaml --out deploy/  # the files each machine deploys\n  hybridgen verify cluster.yaml --kubectl      # compare the plan with the cluster\n\n`hybridgen explain CODE` tells what a finding means and how to fix it."
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Write a commented starter spec, the place to start.
    ///
    /// Writes the spec and its JSON Schema beside it, for editors: Kubernetes 1.36 with a Windows
    /// worker on containerd and HostProcess flannel; with `--distribution rke2` the same nodes on
    /// RKE2 (and with `--rancher URL` as a Rancher custom cluster); or with `--kubecluster` the
    /// Kubernetes 1.16 layout whose Windows nodes are set up by KubeCluster.ps1.
    #[command(
        after_help = "Examples:\n  hybridgen init clusters/demo.yaml\n  hybridgen init --distribution rke2 clusters/rke2.yaml\n  hybridgen init --distribution rke2 --rancher https://rancher.example.com clusters/rancher.yaml\n  hybridgen init --kubecluster clusters/legacy.yaml"
    )]
    Init(Deferred<InitArgs>),
    /// Lint cluster specs and print their resolved IP plan.
    #[command(
        after_help = "Examples:\n  hybridgen plan examples/kubeadm-1.36-vxlan-windows.yaml\n  hybridgen plan --format sarif clusters/*.yaml > hybridgen.sarif\n  cat spec.yaml | hybridgen plan - --stdin-filename clusters/spec.yaml"
    )]
    Plan(Deferred<PlanArgs>),
    /// Render what each machine deploys into a directory.
    ///
    /// The flannel manifest, node-selector patches, Windows node files, routes, kubeadm, RKE2,
    /// Rancher and Terraform configuration, and plan.json.
    #[command(
        after_help = "Examples:\n  hybridgen render examples/kubeadm-1.36-vxlan-windows.yaml --out deploy/\n  hybridgen render spec.yaml --out deploy/ --check   # CI: fail when committed artifacts are stale"
    )]
    Render(Deferred<RenderArgs>),
    /// Compare the plan of a spec with what the cluster runs.
    ///
    /// As kubectl captured it: nodes, their pod subnets, addresses and Windows builds, flannel's,
    /// kubeadm's, kube-proxy's and the kubelet's configuration, and where the network DaemonSets
    /// schedule.
    #[command(
        after_help = "Examples:\n  hybridgen verify spec.yaml --print-capture > capture.sh   # the kubectl commands to run\n  hybridgen verify spec.yaml --cluster cluster-capture/      # files captured with kubectl\n  hybridgen verify spec.yaml --kubectl                       # run kubectl (current context) here"
    )]
    Verify(Deferred<VerifyArgs>),
    /// Explain a rule: what it checks, why, and how to fix it.
    #[command(
        after_help = "Examples:\n  hybridgen explain HG201\n  hybridgen explain vxlan-vni-windows\n  hybridgen explain --list\n  hybridgen explain --all > rules.md"
    )]
    Explain(Deferred<ExplainArgs>),
    /// Print the JSON Schema of the cluster spec.
    #[command(after_help = "Example:\n  hybridgen schema > hybridgen.schema.json")]
    Schema,
    /// Print a shell completion script.
    #[command(
        after_help = "Examples (for your user; each directory is created first):\n  mkdir -p ~/.local/share/bash-completion/completions\n  hybridgen completions bash > ~/.local/share/bash-completion/completions/hybridgen\n  mkdir -p ~/.zfunc   # and in ~/.zshrc, before compinit: fpath+=~/.zfunc\n  hybridgen completions zsh > ~/.zfunc/_hybridgen\n  mkdir -p ~/.config/fish/completions\n  hybridgen completions fish > ~/.config/fish/completions/hybridgen.fish\n  New-Item -ItemType Directory -Force (Split-Path $PROFILE)\n  hybridgen completions powershell >> $PROFILE"
    )]
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print a manual page, or write them all into a directory.
    ///
    /// The roff of hybridgen(1), or of a subcommand's, e.g. hybridgen-plan(1).
    #[command(
        after_help = "Examples:\n  mkdir -p ~/.local/share/man/man1\n  hybridgen man --dir ~/.local/share/man/man1   # then: man hybridgen-plan\n  hybridgen man plan > hybridgen-plan.1"
    )]
    Man(Deferred<ManArgs>),
}

pub fn run(cli: Cli) -> Outcome {
    match cli.command {
        Command::Plan(Deferred(args)) => commands::plan::run(args),
        Command::Render(Deferred(args)) => commands::render::run(args),
        Command::Verify(Deferred(args)) => commands::verify::run(args),
        Command::Explain(Deferred(args)) => commands::explain::run(args),
        Command::Init(Deferred(args)) => commands::init::run(args),
        Command::Schema => emit(&schema::generate_text(), Outcome::Clean),
        Command::Completions { shell } => commands::completions::run(shell, Cli::command()),
        Command::Man(Deferred(args)) => commands::man::run(args, Cli::command()),
    }
}

/// A subcommand's arguments, added to its clap command only when that subcommand is parsed or
/// described: a run builds the options of one command, not of all eight, which was most of
/// clap's start-up. `--help`, completions and manual pages build them all (`Command::build`), so
/// what they show is unchanged.
#[derive(Debug)]
pub struct Deferred<T>(T);

impl<T: Args> Args for Deferred<T> {
    fn augment_args(command: clap::Command) -> clap::Command {
        command.defer(T::augment_args)
    }

    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        command.defer(T::augment_args_for_update)
    }
}

impl<T: FromArgMatches> FromArgMatches for Deferred<T> {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches(matches).map(Deferred)
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches(matches)
    }
}
