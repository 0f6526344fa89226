/**
 * The MAVIS backend tac_plus-ng runs while the second factor is on (renderers/mfa.ts), written into
 * each release as portcullis-mfa.pl: Perl with core modules only (HTTP::Tiny, JSON::PP), the Perl
 * the lockout backend already needs. A string here, not a file beside the code, so the build carries it.
 */
export const MFA_BACKEND_SOURCE = String.raw`#!/usr/bin/perl
# Portcullis: the MAVIS backend of tac_plus-ng while the second factor is on (tacacs.mfa_mode append;
# plugins/tacacs/renderers/mfa.ts). Checks the password against the release's shadow file (SHA-512
# crypt), then asks the platform's internal surface whether the user owes a second factor:
# the password alone for users without MFA; the password followed by the 6-digit code for users
# with an authenticator; the password alone for users with a push device, who then approve the
# login on their phone while this backend waits (at most setting mfa.push_timeout_seconds: the
# platform answers at the push's end). The platform unreachable or refusing the key: an error
# (tac_plus-ng answers "backend failure", the login fails closed) and the reason on stderr; a push
# not approved: a refusal, its outcome on stderr.
#
# Environment (setenv in the external module): SHADOWFILE, MFA_URL (scheme, host, port), MFA_KEY.
# Protocol: tac_plus-ng's MAVIS external (attribute number, space, value lines; a line "=" ends a
# request; the answer ends with "=<result>"). Only core Perl modules (HTTP::Tiny, JSON::PP).
use strict;
use warnings;
use HTTP::Tiny;
use JSON::PP;
use Socket qw(IPPROTO_TCP TCP_NODELAY);

use constant { AV_A_TYPE => 0, AV_A_USER => 4, AV_A_RESULT => 6, AV_A_PASSWORD => 8, AV_A_IPADDR => 14, AV_A_SERVERIP => 25, AV_A_USER_RESPONSE => 32, AV_A_TACTYPE => 49 };
use constant { MAVIS_FINAL => 0, MAVIS_DOWN => 16 };

$| = 1;
$/ = "\n=\n";
my $shadow = $ENV{SHADOWFILE} // '/dev/null';
my $url = $ENV{MFA_URL} // '';
my $key = $ENV{MFA_KEY} // '';
# HTTP::Tiny writes the headers and the body in two writes: with Nagle on, the body waits for the
# platform's delayed ACK of the headers, 40 ms a call (measured: bench/device-mfa.ts). No delay.
{
	no warnings 'redefine';
	my $connect = \&HTTP::Tiny::Handle::connect;
	*HTTP::Tiny::Handle::connect = sub {
		my $h = $connect->(@_);
		setsockopt($h->{fh}, IPPROTO_TCP, TCP_NODELAY, 1);
		return $h;
	};
}
my $http = HTTP::Tiny->new(timeout => 2, keep_alive => 1);
# The push call lasts until the phone answers: the platform ends it at the push's end (at most
# 120 s, the most mfa.push_timeout_seconds takes), so this bound is never the one that ends it.
# tac_plus-ng's external MAVIS module has no timeout of its own (libmavis_external.c); the NAS's
# TACACS+ timeout must cover the wait (docs/tac_plus-ng.md).
my $push_http = HTTP::Tiny->new(timeout => 125, keep_alive => 1);
my $json = JSON::PP->new->canonical;

# The shadow file as a hash, read again only when the file changed (a deploy writes a new release):
# a lookup costs the same whatever the number of users.
my %verifiers;
my $seen = '';
sub verifier {
	my ($user) = @_;
	my @st = stat($shadow);
	my $now = @st ? "$st[0]:$st[1]:$st[7]:$st[9]" : '';
	if ($now ne $seen) {
		%verifiers = ();
		if (open(my $fh, '<', $shadow)) {
			local $/ = "\n";
			while (my $line = <$fh>) {
				my ($name, $hash) = split(/:/, $line);
				$verifiers{$name} = $hash if defined $hash;
			}
			close $fh;
		}
		$seen = $now;
	}
	return $verifiers{$user};
}

sub password_ok {
	my ($hash, $password) = @_;
	return length($password) && crypt($password, $hash) eq $hash;
}

# The surface's answer as a hash, or dies with the reason (fail closed).
sub surface {
	my ($path, $body, $client) = @_;
	my $r = ($client // $http)->post("$url$path", { headers => { 'content-type' => 'application/json', 'x-internal-key' => $key }, content => $json->encode($body) });
	die "rate_limited\n" if $r->{status} == 429;
	if ($r->{status} != 200) {
		my $why = $r->{content} // '';
		$why =~ s/\s+/ /g;
		$why =~ s/ $//;
		die "the platform's MFA surface answered " . ($r->{status} == 599 ? "nothing ($why)" : $r->{status}) . "\n";
	}
	return $json->decode($r->{content});
}

# What the user reads, and the log's reason, for each end of a push but the approval.
my %push_refusal = (
	denied => ['the sign-in was denied on your phone', 'mfa_push_denied'],
	wrong_number => ['the sign-in was denied on your phone', 'mfa_push_denied'],
	reported => ['the sign-in was reported on your phone: pushes are locked', 'mfa_push_denied'],
	cancelled => ['the push was cancelled', 'mfa_push_denied'],
	challenge_closed => ['the push was cancelled', 'mfa_push_denied'],
	expired => ['the push was not answered in time', 'mfa_push_timeout'],
	timeout => ['the push was not answered in time', 'mfa_push_timeout'],
	unavailable => ['the push could not be sent: use your password followed by the 6-digit code if you have an authenticator', 'mfa_push_unavailable'],
	no_device => ['MFA code required: type your password followed by the 6-digit code', 'mfa_push_unavailable'],
	locked => ['pushes are locked for your account since a sign-in was reported: ask your administrator', 'mfa_push_locked'],
	rate_limited => ['too many pushes: try again later', 'mfa_rate_limited'],
);

# A push to the user's phone for the check's challenge, waited for: ACK on approval only.
sub push_and_wait {
	my ($user, $challenge, $ip, $client) = @_;
	my %body = (username => $user, challenge => $challenge, origin => 'tacacs');
	$body{ip} = $ip if defined $ip && length $ip && length $ip <= 253;
	$body{client} = $client if defined $client && length $client && length $client <= 253;
	my $p = surface('/api/v1/mfa/internal/push', \%body, $push_http);
	return ('ACK', undef) if $p->{approved} && ($p->{outcome} // '') eq 'approved';
	my $outcome = $p->{outcome} // 'unknown';
	my ($why, $reason) = @{ $push_refusal{$outcome} // ['the push was not approved', 'mfa_push_denied'] };
	print STDERR "portcullis-mfa: user $user: the push was not approved: $outcome ($reason); refused\n";
	return ('NAK', $why);
}

# NAK with a reason for the user, ACK, NFD (not ours: the next module), or ERR.
sub decide {
	my ($user, $password, $ip, $client) = @_;
	my $hash = verifier($user);
	unless (defined $hash) {
		# No local password: a directory user's (or nobody's), for the LDAP module after this one (directory.ts).
		# The code is not checked for directory users here yet: one who owes a code is refused, never let through.
		my $c = surface('/api/v1/mfa/internal/check', { username => $user });
		return $c->{required} ? ('NAK', 'MFA is not available for directory accounts on TACACS+ yet: ask your administrator') : ('NFD', undef);
	}
	if (password_ok($hash, $password)) {
		my $c = surface('/api/v1/mfa/internal/check', { username => $user });
		return ('ACK', undef) unless $c->{required};
		# No code typed: a push where the user has a device (no number: no prompt after the password).
		return push_and_wait($user, $c->{challenge}, $ip, $client) if grep { $_ eq 'push' } @{ $c->{factors} // [] };
		return ('NAK', 'MFA code required: type your password followed by the 6-digit code');
	}
	if ($password =~ /^(.+)([0-9]{6})$/s && password_ok($hash, $1)) {
		my $code = $2;
		my $c = surface('/api/v1/mfa/internal/check', { username => $user });
		return ('NAK', 'wrong password') unless $c->{required};
		my $v = surface('/api/v1/mfa/internal/verify', { username => $user, code => $code, challenge => $c->{challenge} });
		return $v->{valid} ? ('ACK', undef) : ('NAK', 'wrong or already used MFA code');
	}
	return ('NAK', 'wrong password');
}

while (my $in = <STDIN>) {
	chomp $in;
	my @V;
	foreach my $a (split(/\n/, $in)) {
		next unless $a =~ /^(\d+) (.*)$/;
		$V[$1] = $2;
	}
	my $result = MAVIS_FINAL;
	if (($V[AV_A_TYPE] // '') ne 'TACPLUS' || ($V[AV_A_TACTYPE] // '') ne 'AUTH' || !defined $V[AV_A_USER] || !defined $V[AV_A_PASSWORD]) {
		$result = MAVIS_DOWN;
	} else {
		my ($verdict, $why) = eval { decide($V[AV_A_USER], $V[AV_A_PASSWORD], $V[AV_A_IPADDR], $V[AV_A_SERVERIP]) };
		if (!defined $verdict) {
			my $err = $@ || "unknown error";
			# Not chomp: $/ is the request separator here.
			$err =~ s/\s+\z//;
			if ($err eq 'rate_limited') {
				($verdict, $why) = ('NAK', 'too many MFA codes: try again later');
			} else {
				print STDERR "portcullis-mfa: user $V[AV_A_USER]: the second factor could not be checked: $err; refused\n";
				($verdict, $why) = ('ERR', 'the second factor could not be checked');
			}
		}
		$V[AV_A_RESULT] = $verdict;
		$V[AV_A_USER_RESPONSE] = $why if defined $why;
	}
	my $out = '';
	for (my $i = 0; $i <= $#V; $i++) {
		next unless defined $V[$i];
		(my $v = $V[$i]) =~ tr/\n/\r/;
		$out .= "$i $v\n";
	}
	print $out . "=$result\n";
}
`
