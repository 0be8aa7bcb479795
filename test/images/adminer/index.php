<?php
// Ours, after TimWolla/docker-adminer@7088bf0 5/index.php: the plugins in plugins-enabled/ (written by
// entrypoint.sh) are loaded, the login form's empty "Server" field is filled with ADMINER_DEFAULT_SERVER (else
// "db"), a linked adminer.css (ADMINER_DESIGN) is served as CSS, then the compiled adminer.php runs.
// Upstream wraps Adminer's loginFormField hook in a plugin; this one rewrites the finished field's markup, which
// shows the same form without depending on the hook API of a given Adminer release.
namespace stackwright {
  function adminer_object() {
    $plugins = [];
    foreach (glob(__DIR__ . '/plugins-enabled/*.php') as $file) $plugins[] = require $file;
    return new \Adminer\Plugins($plugins);
  }

  function default_server(string $html): string {
    $server = ($_ENV['ADMINER_DEFAULT_SERVER'] ?? '') ?: 'db';
    return preg_replace_callback('/name="auth\[server\]" value=""/', fn () => sprintf('name="auth[server]" value="%s"', htmlspecialchars($server, ENT_QUOTES)), $html);
  }
}

namespace {
  if (basename($_SERVER['REQUEST_URI'] ?? '') === 'adminer.css' && is_readable(__DIR__ . '/adminer.css')) {
    header('Content-Type: text/css');
    readfile(__DIR__ . '/adminer.css');
    exit;
  }
  function adminer_object() {
    return \stackwright\adminer_object();
  }
  ob_start('stackwright\default_server');
  require __DIR__ . '/adminer.php';
}
