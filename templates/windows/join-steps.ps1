
function Get-VerifiedFile([string] $Url, [string] $ChecksumUrl, [string] $Path) {
    # Downloads $Url to $Path unless $Path already holds it, and checks it against the SHA-256
    # its project publishes at $ChecksumUrl (the first word of that file).
    $checksumFile = "$Path.sha256"
    Invoke-WebRequest -UseBasicParsing -Uri $ChecksumUrl -OutFile $checksumFile
    $expected = ((Get-Content -Raw -Path $checksumFile).Trim() -split '\s+')[0].ToLowerInvariant()
    Remove-Item -Force -Path $checksumFile
    if ((Test-Path -Path $Path) -and ((Get-FileHash -Algorithm SHA256 -Path $Path).Hash.ToLowerInvariant() -eq $expected)) {
        Write-Host "  $Path is already the published file"
        return
    }
    Write-Host "  downloading $Url"
    Invoke-WebRequest -UseBasicParsing -Uri $Url -OutFile "$Path.download"
    $actual = (Get-FileHash -Algorithm SHA256 -Path "$Path.download").Hash.ToLowerInvariant()
    if ($actual -ne $expected) {
        Remove-Item -Force -Path "$Path.download"
        throw "$Url has SHA-256 $actual, but $ChecksumUrl publishes $expected"
    }
    Move-Item -Force -Path "$Path.download" -Destination $Path
    Write-Host "  checked against $ChecksumUrl"
}

Write-Host "Step 1/7: the Windows Containers feature"
if ((Get-WindowsFeature -Name Containers).InstallState -ne 'Installed') {
    Install-WindowsFeature -Name Containers | Out-Null
    Write-Host 'Installed the Containers feature: restart the node (Restart-Computer), then run this script again'
    exit 0
}

Write-Host "Step 2/7: containerd $ContainerdVersion, with CNI in $CniBinPath and $CniConfigPath"
$containerdDir = Join-Path $env:ProgramFiles 'containerd'
$containerdExe = Join-Path $containerdDir 'bin\containerd.exe'
$installed = ''
if (Test-Path -Path $containerdExe) {
    $installed = (& $containerdExe --version) -join ' '
}
if ($installed -notmatch [regex]::Escape(" v$ContainerdVersion ")) {
    $archive = "containerd-$ContainerdVersion-windows-amd64.tar.gz"
    $url = "https://github.com/containerd/containerd/releases/download/v$ContainerdVersion/$archive"
    $download = Join-Path $env:TEMP $archive
    Get-VerifiedFile -Url $url -ChecksumUrl "$url.sha256sum" -Path $download
    if (Get-Service -Name containerd -ErrorAction SilentlyContinue) {
        Stop-Service -Name containerd
    }
    New-Item -ItemType Directory -Force -Path $containerdDir | Out-Null
    tar.exe -xzf $download -C $containerdDir
    if ($LASTEXITCODE -ne 0) {
        throw "tar could not unpack $download"
    }
}
New-Item -ItemType Directory -Force -Path $CniBinPath, $CniConfigPath | Out-Null
$configPath = Join-Path $containerdDir 'config.toml'
$configChanged = -not (Test-Path -Path $configPath) -or ((Get-Content -Raw -Path $configPath) -ne $ContainerdConfig)
if ($configChanged) {
    Set-Content -Encoding ASCII -NoNewline -Path $configPath -Value $ContainerdConfig
}
if (-not (Get-Service -Name containerd -ErrorAction SilentlyContinue)) {
    & $containerdExe --register-service
    if ($LASTEXITCODE -ne 0) {
        throw 'containerd --register-service failed'
    }
}
if ($configChanged -or (Get-Service -Name containerd).Status -ne 'Running') {
    Restart-Service -Name containerd
}

Write-Host 'Step 3/7: the kubelet directories'
foreach ($directory in 'C:\k', 'C:\var\log\kubelet', 'C:\var\lib\kubelet\etc\kubernetes', 'C:\etc\kubernetes\pki', 'C:\etc\kubernetes\manifests') {
    New-Item -ItemType Directory -Force -Path $directory | Out-Null
}
# The cluster's kubelet configuration names /etc/kubernetes/pki/ca.crt, which the Windows kubelet
# reads relative to C:\var\lib\kubelet (sig-windows-tools hostprocess/PrepareNode.ps1).
if (-not (Test-Path -Path 'C:\var\lib\kubelet\etc\kubernetes\pki')) {
    New-Item -ItemType SymbolicLink -Path 'C:\var\lib\kubelet\etc\kubernetes\pki' -Value 'C:\etc\kubernetes\pki' | Out-Null
}

Write-Host "Step 4/7: kubelet, kubeadm and kube-log-runner $KubernetesVersion"
foreach ($binary in 'kubelet.exe', 'kubeadm.exe', 'kube-log-runner.exe') {
    $url = "https://dl.k8s.io/$KubernetesVersion/bin/windows/amd64/$binary"
    Get-VerifiedFile -Url $url -ChecksumUrl "$url.sha256" -Path (Join-Path 'C:\k' $binary)
}
# kubeadm's preflight runs `kubelet --version` from the PATH.
$machinePath = [Environment]::GetEnvironmentVariable('Path', 'Machine')
if (($machinePath -split ';') -notcontains 'C:\k') {
    [Environment]::SetEnvironmentVariable('Path', "$machinePath;C:\k", 'Machine')
}
if (($env:Path -split ';') -notcontains 'C:\k') {
    $env:Path = "$env:Path;C:\k"
}

Write-Host 'Step 5/7: the kubelet service (restarted on failure, logging to C:\var\log\kubelet\kubelet.log)'
$binaryPath = 'C:\k\kube-log-runner.exe -log-file=C:\var\log\kubelet\kubelet.log C:\k\kubelet.exe ' + ($KubeletArguments -join ' ')
if (Get-Service -Name kubelet -ErrorAction SilentlyContinue) {
    sc.exe config kubelet binPath= $binaryPath depend= containerd start= auto | Out-Null
} else {
    New-Service -Name kubelet -BinaryPathName $binaryPath -DependsOn containerd -StartupType Automatic | Out-Null
}
sc.exe failure kubelet reset= 0 actions= restart/10000 | Out-Null

Write-Host 'Step 6/7: the firewall'
if (-not (Get-NetFirewallRule -Name 'kubelet-10250' -ErrorAction SilentlyContinue)) {
    New-NetFirewallRule -Name 'kubelet-10250' -DisplayName 'kubelet (TCP 10250)' -Direction Inbound -Protocol TCP -LocalPort 10250 -Action Allow | Out-Null
}
if ($OpenVxlanPort -and -not (Get-NetFirewallRule -Name 'flannel-vxlan-4789' -ErrorAction SilentlyContinue)) {
    New-NetFirewallRule -Name 'flannel-vxlan-4789' -DisplayName 'flannel VXLAN (UDP 4789)' -Direction Inbound -Protocol UDP -LocalPort 4789 -Action Allow | Out-Null
}

Write-Host "Step 7/7: kubeadm join as $NodeName ($NodeAddress)"
if (Test-Path -Path 'C:\etc\kubernetes\kubelet.conf') {
    Write-Host '  this node has joined already (C:\etc\kubernetes\kubelet.conf exists); run kubeadm reset first to join again'
} else {
    & 'C:\k\kubeadm.exe' join --config (Join-Path $PSScriptRoot 'kubeadm-join.yaml')
    if ($LASTEXITCODE -ne 0) {
        throw "kubeadm join failed with exit code $LASTEXITCODE"
    }
}
Write-Host "Done: $NodeName is joined. It turns Ready once the kube-flannel-ds-windows and kube-proxy-windows pods run on it (kubectl get pods -A -o wide)."
