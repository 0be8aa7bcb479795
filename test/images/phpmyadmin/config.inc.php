<?php
// Our own, from phpmyadmin/docker@5.2.3.1 apache/config.inc.php's behaviour for one server: the blowfish secret
// the entrypoint wrote; PMA_HOST (else the host `db`) with PMA_PORT and PMA_VERBOSE; cookie login, or the config
// login of PMA_USER/PMA_PASSWORD; PMA_ARBITRARY=1 lets the form name any server; PMA_ABSOLUTE_URI,
// PMA_UPLOADDIR, PMA_SAVEDIR, MAX_EXECUTION_TIME and MEMORY_LIMIT; compression off and empty passwords allowed as
// upstream sets them; config.user.inc.php and conf.d/*.php last. Not here: PMA_HOSTS (several servers), sockets,
// TLS to the server, the configuration storage (PMA_PMADB, control user), query history.
require '/etc/phpmyadmin/config.secret.inc.php';

$env = static function (string $name): ?string {
    $value = getenv($name);
    return $value === false ? null : $value;
};

if ($env('PMA_ARBITRARY') === '1') {
    $cfg['AllowArbitraryServer'] = true;
}
if ($env('PMA_ABSOLUTE_URI') !== null) {
    $cfg['PmaAbsoluteUri'] = trim($env('PMA_ABSOLUTE_URI'));
}

$server = ['host' => 'db', 'compress' => false, 'AllowNoPassword' => true];
if (($env('PMA_HOST') ?? '') !== '') {
    $server['host'] = $env('PMA_HOST');
    if ($env('PMA_PORT') !== null) {
        $server['port'] = $env('PMA_PORT');
    }
    if ($env('PMA_VERBOSE') !== null) {
        $server['verbose'] = $env('PMA_VERBOSE');
    }
}
if ($env('PMA_USER') !== null) {
    $server['auth_type'] = 'config';
    $server['user'] = $env('PMA_USER');
    $server['password'] = $env('PMA_PASSWORD') ?? '';
} else {
    $server['auth_type'] = 'cookie';
}
$cfg['Servers'][1] = $server;
$i = 1;

foreach (['PMA_UPLOADDIR' => 'UploadDir', 'PMA_SAVEDIR' => 'SaveDir', 'MAX_EXECUTION_TIME' => 'ExecTimeLimit', 'MEMORY_LIMIT' => 'MemoryLimit'] as $name => $setting) {
    if ($env($name) !== null) {
        $cfg[$setting] = $env($name);
    }
}

if (file_exists('/etc/phpmyadmin/config.user.inc.php')) {
    include '/etc/phpmyadmin/config.user.inc.php';
}
foreach (glob('/etc/phpmyadmin/conf.d/*.php') ?: [] as $file) {
    include $file;
}
