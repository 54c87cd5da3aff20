package io.k4j.apiserver.pki;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;

/**
 * PEM encoding and decoding of certificates and keys in the forms Go's {@code crypto/tls} and {@code kubectl}
 * read: {@code CERTIFICATE}, PKCS#8 {@code PRIVATE KEY} (also reads {@code EC PRIVATE KEY}/{@code RSA PRIVATE KEY})
 * and {@code PUBLIC KEY}. Stateless and thread-safe.
 */
public final class Pem {
    private Pem() {}

    public static String encodeCertificates(List<X509Certificate> certificates) {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
            for (X509Certificate certificate : certificates) {
                writer.writeObject(certificate);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    public static String encodePrivateKey(PrivateKey key) {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
            writer.writeObject(new JcaPKCS8Generator(key, null));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    public static String encodePublicKey(PublicKey key) {
        StringWriter out = new StringWriter();
        try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
            writer.writeObject(key);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    /** All certificates of a PEM bundle, in order. */
    public static List<X509Certificate> decodeCertificates(String pem) {
        List<X509Certificate> certificates = new ArrayList<>();
        JcaX509CertificateConverter converter = new JcaX509CertificateConverter();
        try (PEMParser parser = new PEMParser(new StringReader(pem))) {
            Object object;
            while ((object = parser.readObject()) != null) {
                if (object instanceof X509CertificateHolder holder) {
                    certificates.add(converter.getCertificate(holder));
                }
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("invalid PEM certificate data", e);
        } catch (CertificateException e) {
            throw new IllegalArgumentException("invalid certificate", e);
        }
        if (certificates.isEmpty()) {
            throw new IllegalArgumentException("no certificate found in PEM data");
        }
        return List.copyOf(certificates);
    }

    public static X509Certificate decodeCertificate(String pem) {
        return decodeCertificates(pem).get(0);
    }

    public static PrivateKey decodePrivateKey(String pem) {
        JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
        try (PEMParser parser = new PEMParser(new StringReader(pem))) {
            Object object;
            while ((object = parser.readObject()) != null) {
                if (object instanceof PrivateKeyInfo info) {
                    return converter.getPrivateKey(info);
                }
                if (object instanceof PEMKeyPair pair) {
                    return converter.getKeyPair(pair).getPrivate();
                }
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("invalid PEM private key data", e);
        }
        throw new IllegalArgumentException("no private key found in PEM data");
    }

    public static PublicKey decodePublicKey(String pem) {
        JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
        try (PEMParser parser = new PEMParser(new StringReader(pem))) {
            Object object;
            while ((object = parser.readObject()) != null) {
                if (object instanceof SubjectPublicKeyInfo info) {
                    return converter.getPublicKey(info);
                }
                if (object instanceof X509CertificateHolder holder) {
                    return converter.getPublicKey(holder.getSubjectPublicKeyInfo());
                }
            }
        } catch (IOException e) {
            throw new IllegalArgumentException("invalid PEM public key data", e);
        }
        throw new IllegalArgumentException("no public key found in PEM data");
    }
}
