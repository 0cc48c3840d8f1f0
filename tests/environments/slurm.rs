//! A real Slurm cluster of one node (Debian's slurmctld, slurmd and munge, configured in a short
//! folder of its own with no cgroups) runs the job array and the merge job `simreel plan --slurm` prints;
//! the merged output is byte for byte a local render's. The daemons are stopped when the test
//! ends, passed or failed.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{require_gpu, scratch, simreel};

/// The daemons of a one-node cluster; dropping it stops them.
struct Cluster {
    dir: PathBuf,
    daemons: Vec<Child>,
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // the jobs first (a failed test may leave renders running), then the daemons
        let _ = self.command("scancel").arg("--full").arg("--user=root").output();
        for d in self.daemons.iter_mut().rev() {
            let _ = d.kill();
            let _ = d.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The cluster's own folder (its state, spool, sockets and logs): a short path of this process's
/// own, since munge's and slurmstepd's Unix sockets there take at most 107 bytes and the test's
/// scratch path can be longer. Removed with the cluster (a failure's message holds the logs).
fn cluster_dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("simreel-slurm-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn need(tool: &str) {
    let found = Command::new("sh").arg("-c").arg(format!("command -v {tool}")).output().is_ok_and(|o| o.status.success());
    assert!(found, "{tool} is missing: run scripts/ensure-test-tools as root (it installs slurmctld, slurmd, slurm-client and munge)");
}

impl Cluster {
    fn conf(&self) -> PathBuf {
        self.dir.join("slurm.conf")
    }

    /// A command that talks to this cluster.
    fn command(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        c.env("SLURM_CONF", self.conf());
        c
    }

    fn start(dir: &Path) -> Cluster {
        for tool in ["munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol"] {
            need(tool);
        }
        let root = Command::new("id").arg("-u").output().unwrap();
        assert_eq!(String::from_utf8_lossy(&root.stdout).trim(), "0", "the Slurm test runs its daemons as root (as CI does)");
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap().trim().split('.').next().unwrap().to_string();
        for sub in ["state", "spool"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        let key = dir.join("munge.key");
        std::fs::write(&key, (0..1024).map(|i| (i * 7919 % 251) as u8).collect::<Vec<_>>()).unwrap();
        std::fs::set_permissions(&key, std::os::unix::fs::PermissionsExt::from_mode(0o400)).unwrap();
        let d = |f: &str| dir.join(f).display().to_string();
        let socket = d("munge.socket");
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let conf = format!(
            "ClusterName=simreel\nSlurmctldHost={host}\nSlurmUser=root\nSlurmdUser=root\nSlurmctldPort={}\nSlurmdPort={}\n\
             AuthType=auth/munge\nAuthInfo=socket={}\nCredType=cred/munge\nStateSaveLocation={}\nSlurmdSpoolDir={}\n\
             SlurmctldPidFile={}\nSlurmdPidFile={}\nProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n\
             JobAcctGatherType=jobacct_gather/none\nAccountingStorageType=accounting_storage/none\nJobCompType=jobcomp/none\n\
             MpiDefault=none\nSchedulerType=sched/backfill\nSelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n\
             ReturnToService=2\nSlurmctldLogFile={}\nSlurmdLogFile={}\nNodeName={host} CPUs={cpus} State=UNKNOWN\n\
             PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n",
            free_port(),
            free_port(),
            socket,
            d("state"),
            d("spool"),
            d("slurmctld.pid"),
            d("slurmd.pid"),
            d("slurmctld.log"),
            d("slurmd.log"),
        );
        let mut cluster = Cluster { dir: dir.to_path_buf(), daemons: Vec::new() };
        std::fs::write(cluster.conf(), conf).unwrap();
        let quiet = |mut c: Command| c.stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
        let mut munge = Command::new("munged");
        munge.arg("-F").arg("--force").arg("--key-file").arg(&key).args(["--socket", &socket, "--pid-file", &d("munged.pid")]);
        munge.args(["--log-file", &d("munged.log"), "--seed-file", &d("munge.seed")]);
        cluster.daemons.push(quiet(munge));
        let deadline = Instant::now() + Duration::from_secs(10);
        while !Path::new(&socket).exists() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(100));
        }
        let mut ctld = cluster.command("slurmctld");
        ctld.args(["-D", "-i"]);
        cluster.daemons.push(quiet(ctld));
        let mut slurmd = cluster.command("slurmd");
        slurmd.arg("-D");
        cluster.daemons.push(quiet(slurmd));
        // up when the node is idle
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let o = cluster.command("sinfo").args(["-h", "-o", "%t"]).output().unwrap();
            if String::from_utf8_lossy(&o.stdout).trim() == "idle" {
                break;
            }
            assert!(Instant::now() < deadline, "the Slurm node did not come up:\n{}", cluster.logs());
            std::thread::sleep(Duration::from_millis(300));
        }
        cluster
    }

    fn logs(&self) -> String {
        ["slurmctld.log", "slurmd.log", "munged.log"]
            .iter()
            .map(|f| format!("--- {f}\n{}", std::fs::read_to_string(self.dir.join(f)).unwrap_or_default()))
            .collect()
    }
}

#[test]
#[cfg_attr(skip_gpu_tests, ignore = "SIMREEL_SKIP_GPU_TESTS is set")]
fn a_real_slurm_cluster_runs_the_plan_and_the_merge_matches_a_local_render() {
    require_gpu();
    let dir = scratch();
    let cluster = Cluster::start(&cluster_dir());
    let (local, shared) = (dir.join("local"), dir.join("shared"));
    let args = ["--size", "96x72"];
    let o = simreel().args(["render", "tests/scenes/flock_30.toml", "--quiet", "--out"]).arg(&local).args(args).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // the plan, as a user prints it, with this build's binary on the "nodes"
    let plan = simreel()
        .args([
            "plan",
            "tests/scenes/flock_30.toml",
            "--shards",
            "3",
            "--slurm",
            "--time",
            "10:00",
            "--binary",
            env!("CARGO_BIN_EXE_simreel"),
            "--out",
        ])
        .arg(&shared)
        .args(args)
        .output()
        .unwrap();
    assert!(plan.status.success(), "{}", String::from_utf8_lossy(&plan.stderr));
    let script = dir.join("plan.sh");
    std::fs::write(&script, &plan.stdout).unwrap();
    let submitted = cluster.command("bash").arg(&script).current_dir(crate::common::root()).output().unwrap();
    let said = String::from_utf8_lossy(&submitted.stdout).to_string();
    assert!(submitted.status.success(), "{said}{}", String::from_utf8_lossy(&submitted.stderr));
    // "render array 12 (3 tasks), merge job 13"
    let ids: Vec<String> = said.split(|c: char| !c.is_ascii_digit()).filter(|w| !w.is_empty()).map(String::from).collect();
    assert_eq!(ids.len(), 3, "{said}");
    let deadline = Instant::now() + Duration::from_secs(300);
    loop {
        let q = cluster.command("squeue").args(["-h", "-o", "%i %T"]).output().unwrap();
        let queue = String::from_utf8_lossy(&q.stdout).to_string();
        if queue.trim().is_empty() {
            break;
        }
        assert!(Instant::now() < deadline, "jobs still queued after 5 minutes:\n{queue}\n{}", cluster.logs());
        std::thread::sleep(Duration::from_millis(500));
    }
    // every task wrote its log; the merge wrote the GIF and the manifest from three shards
    for task in 1..=3 {
        assert!(shared.join(format!("slurm-render-{}_{task}.log", ids[0])).is_file(), "task {task} never ran:\n{}", cluster.logs());
    }
    let merge_log = std::fs::read_to_string(shared.join(format!("slurm-merge-{}.log", ids[2]))).unwrap_or_default();
    assert!(merge_log.contains("30 frames from 3 shards"), "merge log:\n{merge_log}\n{}", cluster.logs());
    crate::common::same_render(&local, &shared);
    drop(cluster);
}
