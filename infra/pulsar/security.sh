# shellcheck shell=bash
# Token authentication and TLS material for a broker instance (sourced by start.sh and token.sh after
# common.sh). Made once per $PULSAR_HOME and kept, so tokens and the CA that clients hold stay valid
# across restarts; delete $PULSAR_HOME/auth or $PULSAR_HOME/tls to make new ones.

TOKENS_CLI=org.apache.pulsar.utils.auth.tokens.TokensCliUtils

# Pulsar's own token tool (`bin/pulsar tokens`), run from the broker's jars.
tokens_cli() {
  "$JAVA" -cp "$BROKER_LIB/*" -Dlog4j.configurationFile="$PULSAR_DIR/log4j2.xml" "$TOKENS_CLI" "$@"
}

# The file a token is signed with: secret.key (HS256) or, with PULSAR_TOKEN_SIGNING=key-pair, private.key (RS256).
signing_key_file() {
  if [[ "$PULSAR_TOKEN_SIGNING" == key-pair ]]; then echo "$AUTH_DIR/private.key"; else echo "$AUTH_DIR/secret.key"; fi
}

# A token for SUBJECT signed with the instance's key (no expiry unless EXPIRY, e.g. 1h).
make_token() { # make_token SUBJECT [EXPIRY]
  local args=(create --subject "$1")
  if [[ "$PULSAR_TOKEN_SIGNING" == key-pair ]]; then
    args+=(--private-key "file://$AUTH_DIR/private.key")
  else
    args+=(--secret-key "file://$AUTH_DIR/secret.key")
  fi
  if [[ -n "${2:-}" ]]; then args+=(--expiry-time "$2"); fi
  tokens_cli "${args[@]}" | tail -n 1
}

# The key (secret.key, or key-pair's public.key) and admin.token (the broker's own client and start.sh's
# admin calls). admin.token.signing names the mode admin.token was signed in, so switching modes on an
# existing instance re-signs it (a file without it predates key-pair mode: secret).
ensure_token_material() {
  mkdir -p "$AUTH_DIR"
  chmod 700 "$AUTH_DIR"
  if [[ "$PULSAR_TOKEN_SIGNING" == key-pair ]]; then
    if [[ ! -s "$AUTH_DIR/private.key" || ! -s "$AUTH_DIR/public.key" ]]; then
      log "creating a token key pair (RS256) in $AUTH_DIR"
      tokens_cli create-key-pair --output-private-key "$AUTH_DIR/private.key" \
        --output-public-key "$AUTH_DIR/public.key" >&2 || die "could not create a key pair"
      chmod 600 "$AUTH_DIR/private.key"
      rm -f "$ADMIN_TOKEN_FILE"
    fi
  elif [[ ! -s "$AUTH_DIR/secret.key" ]]; then
    log "creating a token secret key in $AUTH_DIR"
    tokens_cli create-secret-key --output "$AUTH_DIR/secret.key" >&2 || die "could not create a secret key"
    rm -f "$ADMIN_TOKEN_FILE"
  fi
  if [[ "$(cat "$ADMIN_TOKEN_FILE.signing" 2>/dev/null || echo secret)" != "$PULSAR_TOKEN_SIGNING" ]]; then
    rm -f "$ADMIN_TOKEN_FILE"
  fi
  if [[ ! -s "$ADMIN_TOKEN_FILE" ]]; then
    make_token admin >"$ADMIN_TOKEN_FILE.tmp" || die "could not create the admin token"
    mv "$ADMIN_TOKEN_FILE.tmp" "$ADMIN_TOKEN_FILE"
    echo "$PULSAR_TOKEN_SIGNING" >"$ADMIN_TOKEN_FILE.signing"
  fi
}

# The setting that tells a broker or proxy which key checks tokens (the key made by ensure_token_material).
token_key_conf() {
  if [[ "$PULSAR_TOKEN_SIGNING" == key-pair ]]; then
    echo "tokenPublicKey=file://$AUTH_DIR/public.key"
  else
    echo "tokenSecretKey=file://$AUTH_DIR/secret.key"
  fi
}

# A self-signed CA and a broker certificate for 127.0.0.1/localhost signed by it (openssl, RSA 2048,
# 10 years). Keys are unencrypted PKCS#8, which is what the broker's Netty TLS reads.
ensure_tls_material() {
  [[ -s "$TLS_DIR/broker.cert.pem" && -s "$TLS_DIR/ca.cert.pem" ]] && return 0
  command -v openssl >/dev/null || die "openssl is required for PULSAR_BROKER_TLS_PORT / PULSAR_WEB_TLS_PORT (apt-get install openssl)"
  log "creating a self-signed CA and broker certificate in $TLS_DIR"
  mkdir -p "$TLS_DIR"
  (
    cd "$TLS_DIR"
    openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=toolmesh test CA" \
      -keyout ca.key.pem -out ca.cert.pem \
      -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
    openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout broker.key.pem -out broker.csr.pem
    printf '%s\n' "subjectAltName=IP:127.0.0.1,DNS:localhost" "basicConstraints=CA:FALSE" \
      "keyUsage=critical,digitalSignature,keyEncipherment" "extendedKeyUsage=serverAuth" >broker.ext
    openssl x509 -req -in broker.csr.pem -CA ca.cert.pem -CAkey ca.key.pem -CAcreateserial -days 3650 \
      -extfile broker.ext -out broker.cert.pem
    rm -f broker.csr.pem broker.ext ca.cert.srl
  ) >/dev/null 2>&1 || die "openssl could not create the TLS material in $TLS_DIR"
}

# Broker settings for the switches in use, appended to the rendered standalone.conf.
security_conf() {
  if [[ -n "$PULSAR_BROKER_TLS_PORT" ]]; then
    echo "# TLS on the binary protocol (PULSAR_BROKER_TLS_PORT); the plain port stays open."
    echo "brokerServicePortTls=$PULSAR_BROKER_TLS_PORT"
  fi
  if [[ -n "$PULSAR_WEB_TLS_PORT" ]]; then
    echo "# TLS on the web service: admin API and WebSocket API (PULSAR_WEB_TLS_PORT); the plain port stays open."
    echo "webServicePortTls=$PULSAR_WEB_TLS_PORT"
  fi
  if [[ -n "$PULSAR_BROKER_TLS_PORT$PULSAR_WEB_TLS_PORT" ]]; then
    echo "tlsCertificateFilePath=$TLS_DIR/broker.cert.pem"
    echo "tlsKeyFilePath=$TLS_DIR/broker.key.pem"
    echo "tlsTrustCertsFilePath=$TLS_DIR/ca.cert.pem"
  fi
  if [[ "$PULSAR_TOKEN_AUTH" == 1 ]]; then
    echo "# Token authentication (PULSAR_TOKEN_AUTH=1): every client, the admin API included, needs a token"
    echo "# signed with $(basename "$(signing_key_file)") (PULSAR_TOKEN_SIGNING=$PULSAR_TOKEN_SIGNING). Authorization stays off:"
    echo "# any valid token may use any topic."
    echo "authenticationEnabled=true"
    echo "authenticationProviders=org.apache.pulsar.broker.authentication.AuthenticationProviderToken"
    token_key_conf
    echo "superUserRoles=admin"
    echo "# Connections whose token has expired are challenged for a new one (clients that cannot answer are closed)."
    echo "authenticationRefreshCheckSeconds=$PULSAR_AUTH_REFRESH_CHECK_SECONDS"
    echo "# Behind the proxy (which forwards the client's token), check that token too, and challenge it when it"
    echo "# expires, not only the proxy's own."
    echo "authenticateOriginalAuthData=true"
    echo "# The broker's own client (internal admin calls, the WebSocket service) authenticates as admin."
    echo "brokerClientAuthenticationPlugin=org.apache.pulsar.client.impl.auth.AuthenticationToken"
    echo "brokerClientAuthenticationParameters=file://$ADMIN_TOKEN_FILE"
  fi
}
