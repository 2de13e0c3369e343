
function Install-File([string] $Source, [string] $Destination) {
    # Moves $Source to $Destination. Windows refuses to overwrite or delete a program that runs
    # (the kubelet, a containerd shim that still serves a pod) but lets it be renamed: the old
    # file is set aside as *.old, and Remove-SetAside deletes it on a later run.
    if (Test-Path -Path $Destination) {
        $aside = "$Destination.old"
        Remove-Item -Force -Path $aside -ErrorAction SilentlyContinue
        if (Test-Path -Path $aside) {
            $aside = "$Destination.$([Guid]::NewGuid().ToString('N')).old"
        }
        Move-Item -Force -Path $Destination -Destination $aside
    }
    Move-Item -Force -Path $Source -Destination $Destination
}

function New-JoinConfiguration {
    # kubeadm-join.yaml beside this script holds no secret and ends inside
    # discovery.bootstrapToken: a copy with the token and the CA hash read above, in a directory
    # only Administrators and SYSTEM can read, for kubeadm join. The caller deletes the directory.
    $directory = Join-Path $env:ProgramData ('hybridgen-join-' + [Guid]::NewGuid().ToString('N'))
    New-Item -ItemType Directory -Path $directory | Out-Null
    icacls.exe $directory /inheritance:r /grant:r '*S-1-5-32-544:(OI)(CI)F' '*S-1-5-18:(OI)(CI)F' | Out-Null
    if ($LASTEXITCODE -ne 0) {
        Remove-Item -Recurse -Force -LiteralPath $directory
        throw "icacls could not restrict $directory"
    }
    # Both values matched their form above, so they need no quoting beyond YAML's double quotes.
    $text = (Get-Content -Raw -Path (Join-Path $PSScriptRoot 'kubeadm-join.yaml')).TrimEnd()
    $text += "`n    token: `"$JoinToken`"`n    caCertHashes: [`"$JoinCaHash`"]`n"
    [IO.File]::WriteAllText((Join-Path $directory 'kubeadm-join.yaml'), $text)
    return $directory
}

function Remove-SetAside([string] $Directory) {
    # The files Install-File set aside on earlier runs; those still running stay until next time.
    Get-ChildItem -Path $Directory -Filter '*.old' -File -ErrorAction SilentlyContinue |
        Remove-Item -Force -ErrorAction SilentlyContinue
}

function Get-VerifiedFile([string] $Url, [string] $ChecksumUrl, [string] $Path) {
    # Downloads $Url to $Path unless $Path already holds it, and checks it against the SHA-256
    # its project publishes at $ChecksumUrl (the first word of that file). Says whether $Path
    # changed.
    $checksumFile = "$Path.sha256"
    Invoke-WebRequest -UseBasicParsing -Uri $ChecksumUrl -OutFile $checksumFile
    $expected = ((Get-Content -Raw -Path $checksumFile).Trim() -split '\s+')[0].ToLowerInvariant()
    Remove-Item -Force -Path $checksumFile
    if ((Test-Path -Path $Path) -and ((Get-FileHash -Algorithm SHA256 -Path $Path).Hash.ToLowerInvariant() -eq $expected)) {
        Write-Host "  $Path is already the published file"
        return $false
    }
    Write-Host "  downloading $Url"
    Invoke-WebRequest -UseBasicParsing -Uri $Url -OutFile "$Path.download"
    $actual = (Get-FileHash -Algorithm SHA256 -Path "$Path.download").Hash.ToLowerInvariant()
    if ($actual -ne $expected) {
        Remove-Item -Force -Path "$Path.download"
        throw "$Url has SHA-256 $actual, but $ChecksumUrl publishes $expected"
    }
    Install-File -Source "$Path.download" -Destination $Path
    Write-Host "  checked against $ChecksumUrl"
    return $true
}

function Stop-Kubelet {
    # Says whether the kubelet was running.
    $service = Get-Service -Name kubelet -ErrorAction SilentlyContinue
    if ($service -and $service.Status -ne 'Stopped') {
        Write-Host '  stopping the kubelet'
        Stop-Service -Name kubelet -Force
        return $true
    }
    return $false
}

function Initialize-KubeletDirectories {
    foreach ($directory in 'C:\k', 'C:\var\log\kubelet', 'C:\var\lib\kubelet\etc\kubernetes', 'C:\etc\kubernetes\pki', 'C:\etc\kubernetes\manifests') {
        New-Item -ItemType Directory -Force -Path $directory | Out-Null
    }
    # The cluster's kubelet configuration names /etc/kubernetes/pki/ca.crt, which the Windows
    # kubelet reads relative to C:\var\lib\kubelet (sig-windows-tools hostprocess/PrepareNode.ps1).
    if (-not (Test-Path -Path 'C:\var\lib\kubelet\etc\kubernetes\pki')) {
        New-Item -ItemType SymbolicLink -Path 'C:\var\lib\kubelet\etc\kubernetes\pki' -Value 'C:\etc\kubernetes\pki' | Out-Null
    }
}

function Invoke-Join {
    # Whether the kubelet of a joined node must start again on changed files or settings.
    $restartKubelet = $false

    Write-Host 'Step 1/8: the Windows Containers feature'
    if ((Get-WindowsFeature -Name Containers).InstallState -ne 'Installed') {
        Install-WindowsFeature -Name Containers | Out-Null
        Write-Host 'Installed the Containers feature: restart the node (Restart-Computer), then run this script again'
        # Not 0: the node is not joined yet, and automation must not read this run as done.
        exit 3
    }

    Write-Host "Step 2/8: containerd $ContainerdVersion, with CNI in $CniBinPath and $CniConfigPath"
    $containerdDir = Join-Path $env:ProgramFiles 'containerd'
    $containerdBin = Join-Path $containerdDir 'bin'
    $containerdExe = Join-Path $containerdBin 'containerd.exe'
    Remove-SetAside -Directory $containerdBin
    $installed = ''
    if (Test-Path -Path $containerdExe) {
        $installed = (& $containerdExe --version) -join ' '
    }
    $upgrade = $installed -notmatch [regex]::Escape(" v$ContainerdVersion ")
    # containerd supports upgrades to the next minor line only ("We do not officially support this
    # upgrade path", https://github.com/containerd/containerd/issues/12727; "Upgrade Path" in
    # https://github.com/containerd/containerd/blob/main/RELEASES.md).
    if ($upgrade -and $installed -match ' v(\d+\.\d+)\.') {
        $from = [array]::IndexOf($ContainerdLines, $Matches[1])
        $to = [array]::IndexOf($ContainerdLines, ($ContainerdVersion -replace '^(\d+\.\d+)\..*$', '$1'))
        if ($from -ge 0 -and $to -gt $from + 1) {
            throw "containerd $($Matches[1]) is installed: upgrade one line at a time, drained, with windows.containerd.version set to the newest $($ContainerdLines[$from + 1]) patch first (see docs/windows.md)"
        }
        if ($from -gt $to -and $to -ge 0) {
            throw "containerd $($Matches[1]) is installed and $ContainerdVersion is older: containerd does not support a downgrade; set windows.containerd.version to the installed line or newer"
        }
    }
    $configPath = Join-Path $containerdDir 'config.toml'
    $configChanged = -not (Test-Path -Path $configPath) -or ((Get-Content -Raw -Path $configPath) -ne $ContainerdConfig)
    if ($upgrade -or $configChanged) {
        # The kubelet service depends on containerd: both stop before containerd changes.
        if (Stop-Kubelet) {
            $restartKubelet = $true
        }
        $service = Get-Service -Name containerd -ErrorAction SilentlyContinue
        if ($service -and $service.Status -ne 'Stopped') {
            Write-Host '  stopping containerd'
            Stop-Service -Name containerd -Force
        }
    }
    if ($upgrade) {
        $archive = "containerd-$ContainerdVersion-windows-amd64.tar.gz"
        $download = Join-Path $env:TEMP $archive
        Get-VerifiedFile -Url $ContainerdUrl -ChecksumUrl $ContainerdChecksumUrl -Path $download | Out-Null
        $unpacked = Join-Path $env:TEMP "containerd-$ContainerdVersion"
        Remove-Item -Recurse -Force -Path $unpacked -ErrorAction SilentlyContinue
        New-Item -ItemType Directory -Force -Path $unpacked, $containerdBin | Out-Null
        tar.exe -xzf $download -C $unpacked
        if ($LASTEXITCODE -ne 0) {
            throw "tar could not unpack $download"
        }
        # Running containers keep their shim (containerd-shim-runhcs-v1.exe): set aside, not replaced.
        foreach ($binary in Get-ChildItem -Path (Join-Path $unpacked 'bin') -File) {
            Install-File -Source $binary.FullName -Destination (Join-Path $containerdBin $binary.Name)
        }
        Remove-Item -Recurse -Force -Path $unpacked
    }
    New-Item -ItemType Directory -Force -Path $CniBinPath, $CniConfigPath | Out-Null
    if ($configChanged) {
        Set-Content -Encoding ASCII -NoNewline -Path $configPath -Value $ContainerdConfig
    }
    if (-not (Get-Service -Name containerd -ErrorAction SilentlyContinue)) {
        # Without --log-file the service sends containerd's log nowhere
        # (containerd cmd/containerd/command/service_windows.go).
        New-Item -ItemType Directory -Force -Path 'C:\var\log\containerd' | Out-Null
        & $containerdExe --register-service --log-file 'C:\var\log\containerd\containerd.log'
        if ($LASTEXITCODE -ne 0) {
            throw 'containerd --register-service failed'
        }
    }
    if ((Get-Service -Name containerd).Status -ne 'Running') {
        Start-Service -Name containerd
    }

    Write-Host 'Step 3/8: the kubelet directories'
    Initialize-KubeletDirectories

    Write-Host "Step 4/8: kubelet and kubeadm $KubernetesVersion, kube-log-runner $LogRunnerVersion"
    Remove-SetAside -Directory 'C:\k'
    $binaries = @(
        @{ Name = 'kubelet.exe'; Url = $KubeletUrl; ChecksumUrl = $KubeletChecksumUrl },
        @{ Name = 'kubeadm.exe'; Url = $KubeadmUrl; ChecksumUrl = $KubeadmChecksumUrl },
        @{ Name = 'kube-log-runner.exe'; Url = $LogRunnerUrl; ChecksumUrl = $LogRunnerChecksumUrl }
    )
    foreach ($binary in $binaries) {
        if (Get-VerifiedFile -Url $binary.Url -ChecksumUrl $binary.ChecksumUrl -Path (Join-Path 'C:\k' $binary.Name)) {
            $restartKubelet = $true
        }
    }
    # kubeadm's preflight runs `kubelet --version` from the PATH.
    $machinePath = [Environment]::GetEnvironmentVariable('Path', 'Machine')
    if (($machinePath -split ';') -notcontains 'C:\k') {
        [Environment]::SetEnvironmentVariable('Path', "$machinePath;C:\k", 'Machine')
    }
    if (($env:Path -split ';') -notcontains 'C:\k') {
        $env:Path = "$env:Path;C:\k"
    }

    Write-Host "Step 5/8: crictl $CrictlVersion, configured by C:\k\crictl.yaml"
    $archive = "crictl-$CrictlVersion-windows-amd64.tar.gz"
    $download = Join-Path $env:TEMP $archive
    $newArchive = Get-VerifiedFile -Url $CrictlUrl -ChecksumUrl $CrictlChecksumUrl -Path $download
    if ($newArchive -or -not (Test-Path -Path 'C:\k\crictl.exe')) {
        tar.exe -xzf $download -C $env:TEMP crictl.exe
        if ($LASTEXITCODE -ne 0) {
            throw "tar could not unpack $download"
        }
        Install-File -Source (Join-Path $env:TEMP 'crictl.exe') -Destination 'C:\k\crictl.exe'
    }
    Copy-Item -Force -Path (Join-Path $PSScriptRoot 'crictl.yaml') -Destination 'C:\k\crictl.yaml'
    # crictl reads %USERPROFILE%\.crictl\crictl.yaml unless CRI_CONFIG_FILE names another file
    # (kubernetes-sigs/cri-tools docs/crictl.md): one file for every user.
    [Environment]::SetEnvironmentVariable('CRI_CONFIG_FILE', 'C:\k\crictl.yaml', 'Machine')
    $env:CRI_CONFIG_FILE = 'C:\k\crictl.yaml'

    Write-Host 'Step 6/8: the kubelet service (restarted on failure, logging to C:\var\log\kubelet\kubelet.log, rotated)'
    $binaryPath = 'C:\k\kube-log-runner.exe ' + ($LogRunnerArguments -join ' ') + ' C:\k\kubelet.exe ' + ($KubeletArguments -join ' ')
    $service = Get-CimInstance -ClassName Win32_Service -Filter "Name='kubelet'"
    if (-not $service) {
        New-Service -Name kubelet -BinaryPathName $binaryPath -DependsOn containerd -StartupType Automatic | Out-Null
    } elseif ($service.PathName -ne $binaryPath) {
        sc.exe config kubelet binPath= $binaryPath depend= containerd start= auto | Out-Null
        if ($LASTEXITCODE -ne 0) {
            throw "sc.exe config kubelet failed with exit code $LASTEXITCODE"
        }
        $restartKubelet = $true
    }
    sc.exe failure kubelet reset= 0 actions= restart/10000 | Out-Null
    if ($LASTEXITCODE -ne 0) {
        throw "sc.exe failure kubelet failed with exit code $LASTEXITCODE"
    }

    Write-Host 'Step 7/8: the firewall'
    if (-not (Get-NetFirewallRule -Name 'kubelet-10250' -ErrorAction SilentlyContinue)) {
        New-NetFirewallRule -Name 'kubelet-10250' -DisplayName 'kubelet (TCP 10250)' -Direction Inbound -Protocol TCP -LocalPort 10250 -Action Allow | Out-Null
    }
    if ($OpenVxlanPort -and -not (Get-NetFirewallRule -Name 'flannel-vxlan-4789' -ErrorAction SilentlyContinue)) {
        New-NetFirewallRule -Name 'flannel-vxlan-4789' -DisplayName 'flannel VXLAN (UDP 4789)' -Direction Inbound -Protocol UDP -LocalPort 4789 -Action Allow | Out-Null
    }

    Write-Host "Step 8/8: kubeadm join as $NodeName ($NodeAddress)"
    if (Test-Path -Path 'C:\etc\kubernetes\kubelet.conf') {
        Write-Host '  joined already (C:\etc\kubernetes\kubelet.conf exists)'
        if ($restartKubelet) {
            Write-Host '  starting the kubelet again with the new files and settings'
            Restart-Service -Name kubelet -Force
        } elseif ((Get-Service -Name kubelet).Status -ne 'Running') {
            Start-Service -Name kubelet
        }
    } else {
        # kubeadm's preflight refuses these files, which a join that failed half-way leaves.
        $leftovers = @('C:\etc\kubernetes\bootstrap-kubelet.conf', 'C:\etc\kubernetes\pki\ca.crt', 'C:\var\lib\kubelet\config.yaml') |
            Where-Object { Test-Path -Path $_ }
        if ($leftovers) {
            Write-Host "  an earlier join stopped half-way and left $($leftovers -join ', '): undoing it with kubeadm reset"
            Stop-Kubelet | Out-Null
            & 'C:\k\kubeadm.exe' reset --force "--cri-socket=$CriSocket"
            if ($LASTEXITCODE -ne 0) {
                throw "kubeadm reset failed with exit code ${LASTEXITCODE}: delete $($leftovers -join ', ') by hand, then run this script again"
            }
            Initialize-KubeletDirectories
        }
        $joinDirectory = New-JoinConfiguration
        try {
            & 'C:\k\kubeadm.exe' join --config (Join-Path $joinDirectory 'kubeadm-join.yaml')
            $joinExitCode = $LASTEXITCODE
        } finally {
            Remove-Item -Recurse -Force -LiteralPath $joinDirectory
        }
        if ($joinExitCode -ne 0) {
            throw "kubeadm join failed with exit code ${joinExitCode}: fix what it reported, then run this script again (it undoes the half-finished join first)"
        }
    }
    Write-Host "Done: $NodeName has joined. It reports Ready once flanneld (DaemonSet kube-flannel-ds-windows) has written the CNI configuration into ${CniConfigPath}; watch it with: kubectl get node $NodeName"
}

# kubeadm puts /etc/kubernetes and /var/lib/kubelet on the current drive: run from C:, where the
# kubelet service looks, whichever drive the script is started from.
Push-Location -LiteralPath 'C:\'
try {
    Invoke-Join
} finally {
    Pop-Location
}
