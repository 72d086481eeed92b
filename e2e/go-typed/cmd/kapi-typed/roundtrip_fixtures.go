package main

// The objects of `kapi-typed roundtrip`: as many fields set as kube-apiserver 1.32 accepts
// together (with its default admission plugins), every defaulted field set explicitly so
// that defaulting has nothing to add.

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func fullMeta(name, ns string) metav1.ObjectMeta {
	return metav1.ObjectMeta{
		Name:        name,
		Namespace:   ns,
		Labels:      map[string]string{"app": "roundtrip", "tier": "backend"},
		Annotations: map[string]string{"example.com/note": "every field", "example.com/empty": ""},
		Finalizers:  []string{"example.com/keep"},
	}
}

func probe(path string) *corev1.Probe {
	return &corev1.Probe{
		ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{
			Path: path, Port: intstr.FromString("http"), Host: "127.0.0.1", Scheme: corev1.URISchemeHTTP,
			HTTPHeaders: []corev1.HTTPHeader{{Name: "X-Probe", Value: "1"}},
		}},
		InitialDelaySeconds: 3, TimeoutSeconds: 2, PeriodSeconds: 7, SuccessThreshold: 1, FailureThreshold: 4,
		TerminationGracePeriodSeconds: ptr(int64(12)),
	}
}

// A readiness probe may not carry terminationGracePeriodSeconds.
func readinessProbe() *corev1.Probe {
	p := probe("/ready")
	p.TerminationGracePeriodSeconds = nil
	return p
}

func fullContainer(name, image string) corev1.Container {
	return corev1.Container{
		Name:       name,
		Image:      image,
		Command:    []string{"/app"},
		Args:       []string{"--port=8080", "--verbose"},
		WorkingDir: "/work",
		Ports: []corev1.ContainerPort{
			{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP},
			{Name: "metrics", ContainerPort: 9090, Protocol: corev1.ProtocolUDP, HostPort: 19090, HostIP: "0.0.0.0"},
		},
		EnvFrom: []corev1.EnvFromSource{
			{Prefix: "CM_", ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "settings"}, Optional: ptr(true)}},
			{SecretRef: &corev1.SecretEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "creds"}, Optional: ptr(false)}},
		},
		Env: []corev1.EnvVar{
			{Name: "PLAIN", Value: "value"},
			{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.name"}}},
			{Name: "CPU", ValueFrom: &corev1.EnvVarSource{ResourceFieldRef: &corev1.ResourceFieldSelector{ContainerName: name, Resource: "limits.cpu", Divisor: q("1m")}}},
			{Name: "FROM_CM", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "settings"}, Key: "k", Optional: ptr(true)}}},
			{Name: "FROM_SECRET", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "creds"}, Key: "password", Optional: ptr(true)}}},
		},
		Resources: corev1.ResourceRequirements{
			Limits:   corev1.ResourceList{corev1.ResourceCPU: q("500m"), corev1.ResourceMemory: q("256Mi")},
			Requests: corev1.ResourceList{corev1.ResourceCPU: q("250m"), corev1.ResourceMemory: q("128Mi")},
		},
		// resizePolicy: dropped by kube 1.32 (InPlacePodVerticalScaling is off by default).
		VolumeMounts: []corev1.VolumeMount{
			{Name: "data", MountPath: "/data", SubPath: "sub", MountPropagation: ptr(corev1.MountPropagationNone)},
			{Name: "config", MountPath: "/config", ReadOnly: true},
		},
		LivenessProbe:  probe("/live"),
		ReadinessProbe: readinessProbe(),
		StartupProbe:   probe("/start"),
		Lifecycle: &corev1.Lifecycle{
			PostStart: &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"/bin/true"}}},
			PreStop:   &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 2}},
		},
		TerminationMessagePath:   "/dev/termination-log",
		TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
		ImagePullPolicy:          corev1.PullIfNotPresent,
		SecurityContext: &corev1.SecurityContext{
			Capabilities:             &corev1.Capabilities{Add: []corev1.Capability{"NET_BIND_SERVICE"}, Drop: []corev1.Capability{"ALL"}},
			Privileged:               ptr(false),
			RunAsUser:                ptr(int64(1000)),
			RunAsGroup:               ptr(int64(1000)),
			RunAsNonRoot:             ptr(true),
			ReadOnlyRootFilesystem:   ptr(true),
			AllowPrivilegeEscalation: ptr(false),
			SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		},
		Stdin:     true,
		StdinOnce: true,
		TTY:       true,
	}
}

func fullPodSpec() corev1.PodSpec {
	init := fullContainer("init", "registry.example/init:1.0")
	init.LivenessProbe, init.ReadinessProbe, init.StartupProbe, init.Lifecycle = nil, nil, nil, nil
	init.Ports = nil
	return corev1.PodSpec{
		Volumes: []corev1.Volume{
			{Name: "data", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory, SizeLimit: ptr(q("64Mi"))}}},
			{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: "settings"},
				Items:                []corev1.KeyToPath{{Key: "k", Path: "k.txt", Mode: ptr(int32(0o400))}},
				DefaultMode:          ptr(int32(0o644)), Optional: ptr(true),
			}}},
			{Name: "secret", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "creds", DefaultMode: ptr(int32(0o600)), Optional: ptr(true)}}},
			{Name: "host", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/var/log", Type: ptr(corev1.HostPathDirectory)}}},
			{Name: "claim", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data", ReadOnly: true}}},
			{Name: "info", VolumeSource: corev1.VolumeSource{DownwardAPI: &corev1.DownwardAPIVolumeSource{
				Items:       []corev1.DownwardAPIVolumeFile{{Path: "labels", FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.labels"}}},
				DefaultMode: ptr(int32(0o644)),
			}}},
		},
		InitContainers:                []corev1.Container{init},
		Containers:                    []corev1.Container{fullContainer("app", "registry.example/app:1.0")},
		RestartPolicy:                 corev1.RestartPolicyAlways,
		TerminationGracePeriodSeconds: ptr(int64(45)),
		ActiveDeadlineSeconds:         nil,
		DNSPolicy:                     corev1.DNSNone,
		NodeSelector:                  map[string]string{"kubernetes.io/os": "linux"},
		ServiceAccountName:            "roundtrip",
		DeprecatedServiceAccount:      "roundtrip",
		AutomountServiceAccountToken:  ptr(false),
		NodeName:                      "",
		HostNetwork:                   false,
		HostPID:                       true,
		HostIPC:                       true,
		ShareProcessNamespace:         ptr(false),
		SecurityContext: &corev1.PodSecurityContext{
			RunAsUser: ptr(int64(1000)), RunAsGroup: ptr(int64(1000)), RunAsNonRoot: ptr(true),
			SupplementalGroups: []int64{2000}, FSGroup: ptr(int64(3000)),
			Sysctls:             []corev1.Sysctl{{Name: "net.ipv4.ip_local_port_range", Value: "1024 65535"}},
			FSGroupChangePolicy: ptr(corev1.FSGroupChangeOnRootMismatch),
			SeccompProfile:      &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		},
		ImagePullSecrets: []corev1.LocalObjectReference{{Name: "pull"}},
		Hostname:         "web-0",
		Subdomain:        "web",
		Affinity: &corev1.Affinity{
			NodeAffinity: &corev1.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
					MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"a", "b"}}},
				}}},
				PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{Weight: 10, Preference: corev1.NodeSelectorTerm{
					MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "disk", Operator: corev1.NodeSelectorOpExists}},
				}}},
			},
			PodAntiAffinity: &corev1.PodAntiAffinity{
				PreferredDuringSchedulingIgnoredDuringExecution: []corev1.WeightedPodAffinityTerm{{Weight: 50, PodAffinityTerm: corev1.PodAffinityTerm{
					LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "roundtrip"}},
					TopologyKey:   "kubernetes.io/hostname",
				}}},
			},
		},
		SchedulerName: "default-scheduler",
		Tolerations: []corev1.Toleration{
			{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "web", Effect: corev1.TaintEffectNoSchedule},
			// kube's DefaultTolerationSeconds admission adds these two when absent.
			{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
			{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
		},
		HostAliases:       []corev1.HostAlias{{IP: "10.1.2.3", Hostnames: []string{"db.local"}}},
		PriorityClassName: "",
		Priority:          ptr(int32(0)),
		DNSConfig: &corev1.PodDNSConfig{
			Nameservers: []string{"1.1.1.1"}, Searches: []string{"svc.example"},
			Options: []corev1.PodDNSConfigOption{{Name: "ndots", Value: ptr("2")}},
		},
		ReadinessGates:     []corev1.PodReadinessGate{{ConditionType: "example.com/ready"}},
		RuntimeClassName:   nil,
		EnableServiceLinks: ptr(false),
		PreemptionPolicy:   ptr(corev1.PreemptLowerPriority),
		TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{
			MaxSkew: 1, TopologyKey: "zone", WhenUnsatisfiable: corev1.ScheduleAnyway,
			LabelSelector:      &metav1.LabelSelector{MatchLabels: map[string]string{"app": "roundtrip"}},
			NodeAffinityPolicy: ptr(corev1.NodeInclusionPolicyHonor), NodeTaintsPolicy: ptr(corev1.NodeInclusionPolicyIgnore),
		}},
		SetHostnameAsFQDN: ptr(false),
		OS:                &corev1.PodOS{Name: corev1.Linux},
		SchedulingGates:   []corev1.PodSchedulingGate{{Name: "example.com/gate"}},
	}
}

func fullPod(ns string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: fullMeta("roundtrip-pod", ns), Spec: fullPodSpec()}
}

func fullPodStatus() corev1.PodStatus {
	t := metav1.NewTime(fixedTime)
	return corev1.PodStatus{
		Phase: corev1.PodRunning,
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastProbeTime: t, LastTransitionTime: t, Reason: "Scheduled", Message: "ok"},
			{Type: corev1.PodReady, Status: corev1.ConditionFalse, LastTransitionTime: t, Reason: "ContainersNotReady"},
		},
		Message:           "running",
		Reason:            "Started",
		NominatedNodeName: "node-a",
		HostIP:            "10.0.0.5",
		HostIPs:           []corev1.HostIP{{IP: "10.0.0.5"}},
		PodIP:             "10.244.1.7",
		PodIPs:            []corev1.PodIP{{IP: "10.244.1.7"}},
		StartTime:         &t,
		InitContainerStatuses: []corev1.ContainerStatus{{
			Name: "init", Ready: false, RestartCount: 0, Image: "registry.example/init:1.0", ImageID: "sha256:aaaa", ContainerID: "containerd://init",
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", StartedAt: t, FinishedAt: t, ContainerID: "containerd://init"}},
		}},
		ContainerStatuses: []corev1.ContainerStatus{{
			Name: "app", Ready: false, RestartCount: 2, Image: "registry.example/app:2.0", ImageID: "sha256:bbbb", ContainerID: "containerd://app",
			Started:              ptr(true),
			State:                corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: t}},
			LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Signal: 9, Reason: "Error", Message: "boom", StartedAt: t, FinishedAt: t}},
			AllocatedResources:   corev1.ResourceList{corev1.ResourceCPU: q("250m")},
		}},
		QOSClass: corev1.PodQOSBurstable,
	}
}

func fullDeployment(ns string) *appsv1.Deployment {
	spec := fullPodSpec()
	spec.Hostname, spec.Subdomain = "", ""
	spec.SchedulingGates = nil
	meta := fullMeta("roundtrip-deploy", ns)
	meta.Finalizers = nil
	return &appsv1.Deployment{
		ObjectMeta: meta,
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr(int32(3)),
			Selector: &metav1.LabelSelector{
				MatchLabels:      map[string]string{"app": "roundtrip"},
				MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"backend", "web"}}},
			},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "roundtrip", "tier": "backend"}, Annotations: map[string]string{"example.com/t": "1"}},
				Spec:       spec,
			},
			Strategy: appsv1.DeploymentStrategy{
				Type:          appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxUnavailable: ptr(intstr.FromInt32(1)), MaxSurge: ptr(intstr.FromString("50%"))},
			},
			MinReadySeconds:         5,
			RevisionHistoryLimit:    ptr(int32(4)),
			Paused:                  true,
			ProgressDeadlineSeconds: ptr(int32(120)),
		},
	}
}

func fullService(ns string) *corev1.Service {
	meta := fullMeta("roundtrip-svc", ns)
	meta.Finalizers = nil
	return &corev1.Service{
		ObjectMeta: meta,
		Spec: corev1.ServiceSpec{
			Type: corev1.ServiceTypeLoadBalancer,
			Ports: []corev1.ServicePort{
				{Name: "http", Protocol: corev1.ProtocolTCP, AppProtocol: ptr("http"), Port: 80, TargetPort: intstr.FromString("http"), NodePort: 30777},
				{Name: "dns", Protocol: corev1.ProtocolUDP, Port: 53, TargetPort: intstr.FromInt32(5353), NodePort: 30778},
			},
			Selector:                      map[string]string{"app": "roundtrip"},
			ClusterIP:                     "10.0.0.177",
			ClusterIPs:                    []string{"10.0.0.177"},
			ExternalIPs:                   []string{"192.0.2.50"},
			SessionAffinity:               corev1.ServiceAffinityClientIP,
			SessionAffinityConfig:         &corev1.SessionAffinityConfig{ClientIP: &corev1.ClientIPConfig{TimeoutSeconds: ptr(int32(600))}},
			LoadBalancerIP:                "192.0.2.10",
			LoadBalancerSourceRanges:      []string{"192.0.2.0/24"},
			ExternalTrafficPolicy:         corev1.ServiceExternalTrafficPolicyLocal,
			HealthCheckNodePort:           30779,
			PublishNotReadyAddresses:      true,
			IPFamilies:                    []corev1.IPFamily{corev1.IPv4Protocol},
			IPFamilyPolicy:                ptr(corev1.IPFamilyPolicySingleStack),
			AllocateLoadBalancerNodePorts: ptr(true),
			LoadBalancerClass:             ptr("example.com/lb"),
			InternalTrafficPolicy:         ptr(corev1.ServiceInternalTrafficPolicyLocal),
			TrafficDistribution:           ptr("PreferClose"),
		},
	}
}

func fullNode(ns string) *corev1.Node {
	meta := fullMeta("roundtrip-node-"+ns, "")
	meta.Finalizers = nil
	return &corev1.Node{
		ObjectMeta: meta,
		Spec: corev1.NodeSpec{
			PodCIDR:       "10.244.7.0/24",
			PodCIDRs:      []string{"10.244.7.0/24"},
			ProviderID:    "example://node-7",
			Unschedulable: true,
			Taints: []corev1.Taint{
				{Key: "dedicated", Value: "web", Effect: corev1.TaintEffectNoSchedule},
				{Key: "example.com/drain", Effect: corev1.TaintEffectNoExecute, TimeAdded: ptr(metav1.NewTime(fixedTime))},
				// kube's TaintNodesByCondition admission adds this one to a new node when absent.
				{Key: "node.kubernetes.io/not-ready", Effect: corev1.TaintEffectNoSchedule},
			},
		},
		Status: fullNodeStatus(),
	}
}

func fullNodeStatus() corev1.NodeStatus {
	t := metav1.NewTime(fixedTime)
	return corev1.NodeStatus{
		Capacity:    corev1.ResourceList{corev1.ResourceCPU: q("4"), corev1.ResourceMemory: q("8Gi"), corev1.ResourcePods: q("110")},
		Allocatable: corev1.ResourceList{corev1.ResourceCPU: q("3800m"), corev1.ResourceMemory: q("7Gi"), corev1.ResourcePods: q("110")},
		Phase:       corev1.NodeRunning,
		Conditions: []corev1.NodeCondition{
			{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: t, LastTransitionTime: t, Reason: "KubeletReady", Message: "ready"},
			{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, LastHeartbeatTime: t, LastTransitionTime: t, Reason: "KubeletHasSufficientMemory"},
		},
		Addresses:       []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.7"}, {Type: corev1.NodeHostName, Address: "node-7"}},
		DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10250}},
		NodeInfo: corev1.NodeSystemInfo{
			MachineID: "m", SystemUUID: "s", BootID: "b", KernelVersion: "6.1", OSImage: "Linux", ContainerRuntimeVersion: "containerd://1.7",
			KubeletVersion: "v1.32.0", KubeProxyVersion: "v1.32.0", OperatingSystem: "linux", Architecture: "amd64",
		},
		Images:          []corev1.ContainerImage{{Names: []string{"registry.example/app:1.0", "registry.example/app@sha256:bbbb"}, SizeBytes: 12345}},
		VolumesInUse:    []corev1.UniqueVolumeName{"kubernetes.io/csi/example^vol-1"},
		VolumesAttached: []corev1.AttachedVolume{{Name: "kubernetes.io/csi/example^vol-1", DevicePath: "/dev/xvdb"}},
		RuntimeHandlers: []corev1.NodeRuntimeHandler{{Name: "runc", Features: &corev1.NodeRuntimeHandlerFeatures{RecursiveReadOnlyMounts: ptr(true)}}},
	}
}
